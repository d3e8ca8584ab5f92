"""Tests of :class:`pcalib.PCA`.

Expected values come from independent sources only: scikit-learn's PCA, NumPy's
eigendecompositions computed here, or numbers published for R's ``prcomp``.
None of them is produced by pcalib itself.
"""

from functools import partial

import helpers
import numpy as np
import pandas as pd
import pytest
from helpers import reference_spectrum, spectral_gaps
from sklearn.base import clone
from sklearn.decomposition import PCA as SklearnPCA
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import StandardScaler

import pcalib.pca
from pcalib import PCA
from pcalib.datasets import load_usarrests
from pcalib.pca import (
    COVARIANCE_RTOL,
    center_and_scale,
    choose_svd_solver,
    covariance_from_raw_products,
    covariance_is_accurate,
)

# Columns of standard deviations 1 to 3, the mean in [-5, 5].
make_data = partial(helpers.make_data, scales=lambda d: np.linspace(1.0, 3.0, d), offset=5.0)

EPS = np.finfo(np.float64).eps
SHAPES = [(50, 5), (20, 40), (200, 30), (7, 7)]
SOLVERS = ["full", "covariance_eigh"]


def row_signs(A, B):
    """Signs s such that ``s[:, None] * A`` points the same way as ``B``, row by row."""
    signs = np.sign(np.sum(A * B, axis=1))
    assert np.all(signs != 0), "rows are orthogonal: not the same axes up to sign"
    return signs


def identified_rank(n_samples, n_features):
    """Number of components with non-zero variance for generic data.

    Centring removes one degree of freedom, so the centred data has rank
    ``min(n - 1, d)``. pcalib and scikit-learn both return ``min(n, d)``
    components; when ``n <= d`` the last one spans a direction of zero variance
    that is not unique, so it cannot be compared entry by entry.
    """
    return min(n_samples - 1, n_features)


# ---------------------------------------------------------------------------
# Agreement with scikit-learn
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("n_components", [1, 3, None])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_agrees_with_sklearn(shape, n_components, solver):
    n, d = shape
    X = make_data(n, d, seed=n * 100 + d)
    X_new = make_data(15, d, seed=1) * 2.0 + 3.0  # other mean and scale than X

    ref = SklearnPCA(n_components=n_components, svd_solver="full").fit(X)
    pca = PCA(n_components=n_components, svd_solver=solver).fit(X)

    k = ref.n_components_
    r = min(k, identified_rank(n, d))  # components that are unique up to sign
    assert pca.n_components_ == k
    assert pca.components_.shape == (k, d)

    lam = ref.explained_variance_
    lam_max = lam[0]
    s_max = ref.singular_values_[0]
    if solver == "full":
        # Thin SVD of the centred data, as scikit-learn's "full" solver: the two
        # should agree to rounding.
        comp_atol = np.full(r, 1e-10)
        var_kwargs = dict(rtol=1e-10, atol=1e-14 * lam_max)
        sv_kwargs = dict(rtol=1e-10, atol=1e-14 * s_max)
        score_rtol = 1e-10
    else:
        # The covariance solver forms C = Xcᵀ Xc / (n - 1), i.e. squares the
        # data. eigh is backward stable for C, so every eigenvalue carries an
        # absolute error of a few eps·λ_max (small eigenvalues are only accurate
        # relative to the largest), and eigenvector i an error of about
        # eps·λ_max / gap_i (Davis–Kahan). We allow 100× those first-order sizes.
        # gaps in the full spectrum: the last kept component's nearest
        # neighbour may be the first dropped one
        full_lam = SklearnPCA(svd_solver="full").fit(X).explained_variance_
        gaps = spectral_gaps(full_lam)[:r]
        comp_atol = 100 * EPS * lam_max / gaps + 1e-12
        var_kwargs = dict(rtol=0, atol=1e-12 * lam_max)
        sv_kwargs = None  # compared through s², see below
        score_rtol = 1e-9  # scores inherit the eigenvector error times |x|

    # components_, up to the sign of each row
    signs = row_signs(pca.components_[:r], ref.components_[:r])
    err = np.abs(signs[:, None] * pca.components_[:r] - ref.components_[:r]).max(axis=1)
    assert np.all(err <= comp_atol), (err, comp_atol)
    # the rows pcalib keeps beyond the rank are still orthonormal to the others
    np.testing.assert_allclose(pca.components_ @ pca.components_.T, np.eye(k), atol=1e-10)

    np.testing.assert_allclose(pca.explained_variance_, ref.explained_variance_, **var_kwargs)
    # ratios of zero-variance components are ~0, hence an absolute floor; the
    # covariance solver's ratios are off by about eps·λ_max / total <= eps
    np.testing.assert_allclose(
        pca.explained_variance_ratio_, ref.explained_variance_ratio_, rtol=1e-10, atol=1e-12
    )
    if sv_kwargs is not None:
        np.testing.assert_allclose(pca.singular_values_, ref.singular_values_, **sv_kwargs)
    else:
        # s = sqrt((n - 1) λ): the square root turns an absolute error of
        # eps·λ_max in a zero eigenvalue into sqrt(eps)·s_max in s, so s is
        # compared squared, with the eigenvalue tolerance scaled by (n - 1).
        np.testing.assert_allclose(
            pca.singular_values_**2, ref.singular_values_**2, rtol=0, atol=1e-12 * s_max**2
        )
    np.testing.assert_allclose(pca.mean_, ref.mean_, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(pca.mean_, X.mean(axis=0), rtol=1e-12, atol=1e-14)

    # transform: columns equal up to the same signs as the components
    for data in (X, X_new):
        Z_ref = ref.transform(data)[:, :r]
        Z = pca.transform(data)[:, :r] * signs
        np.testing.assert_allclose(Z, Z_ref, rtol=0, atol=score_rtol * np.abs(Z_ref).max())
    # on the training data the zero-variance scores are zero for both
    Z_train = pca.transform(X)
    # covariance solver: a null eigenvector of C is only accurate to
    # eps·λ_max/λ_r, and Xc v can then be as large as sqrt(eps)·max|Z|
    null_atol = 1e-10 if solver == "full" else 1e-8
    np.testing.assert_allclose(Z_train[:, r:], 0.0, atol=null_atol * np.abs(Z_train).max())

    # fit_transform equals transform of the training data
    Z_fit = PCA(n_components=n_components, svd_solver=solver).fit_transform(X)
    np.testing.assert_allclose(Z_fit, Z_train, rtol=0, atol=1e-10 * np.abs(Z_train).max())

    # inverse_transform: the same reconstruction as scikit-learn (signs cancel)
    scale = np.abs(X).max()
    X_hat = pca.inverse_transform(pca.transform(X))
    X_hat_ref = ref.inverse_transform(ref.transform(X))
    np.testing.assert_allclose(X_hat, X_hat_ref, rtol=0, atol=1e-10 * scale)
    if k <= identified_rank(n, d):
        new_hat = pca.inverse_transform(pca.transform(X_new))
        new_hat_ref = ref.inverse_transform(ref.transform(X_new))
        np.testing.assert_allclose(new_hat, new_hat_ref, rtol=0, atol=1e-10 * np.abs(X_new).max())
    if k == min(n, d) and n > d:
        # keeping every component reconstructs the data exactly
        np.testing.assert_allclose(X_hat, X, rtol=0, atol=1e-10 * scale)


# ---------------------------------------------------------------------------
# USArrests against R's prcomp
# ---------------------------------------------------------------------------

# prcomp(USArrests, scale = TRUE)$rotation, as printed in the ISLR lab
# (rows Murder, Assault, UrbanPop, Rape; columns PC1..PC4).
R_ROTATION_SCALED = np.array(
    [
        [-0.5358995, 0.4181809, -0.3412327, 0.64922780],
        [-0.5831836, 0.1879856, -0.2681484, -0.74340748],
        [-0.2781909, -0.8728062, -0.3780158, 0.13387773],
        [-0.5434321, -0.1673186, 0.8177779, 0.08902432],
    ]
)
R_SDEV_SCALED = np.array([1.5748783, 0.9948694, 0.5971291, 0.4164494])
# example(prcomp) in R's documentation: prcomp(USArrests)
R_SDEV_UNSCALED = np.array([83.732400, 14.212402, 6.489426, 2.482790])
# apply(USArrests, 2, mean) and apply(USArrests, 2, var) in the ISLR lab
ISLR_MEANS = np.array([7.788, 170.760, 65.540, 21.232])
ISLR_VARIANCES = np.array([18.97047, 6945.16571, 209.51878, 87.72916])


def test_usarrests_shipped_data_matches_islr():
    data = load_usarrests()
    assert data.feature_names == ["Murder", "Assault", "UrbanPop", "Rape"]
    # ISLR prints the means exactly (the data have one decimal, n = 50)
    np.testing.assert_allclose(data.data.mean(axis=0), ISLR_MEANS, rtol=0, atol=1e-9)
    # variances printed with 5 decimals: half a unit in the last place
    np.testing.assert_allclose(data.data.var(axis=0, ddof=1), ISLR_VARIANCES, rtol=0, atol=5e-6)


@pytest.mark.parametrize("solver", SOLVERS)
def test_usarrests_scaled_matches_r_prcomp(solver):
    X = load_usarrests().data
    pca = PCA(standardize=True, svd_solver=solver).fit(X)
    loadings = pca.components_.T  # features × components, as R's rotation
    signs = row_signs(loadings.T, R_ROTATION_SCALED.T)
    # R prints 7 significant digits: half a unit in the 7th place
    np.testing.assert_allclose(loadings * signs, R_ROTATION_SCALED, rtol=0, atol=5e-7)
    np.testing.assert_allclose(np.sqrt(pca.explained_variance_), R_SDEV_SCALED, rtol=0, atol=5e-7)
    # standardised: the variances of the four components add up to 4
    assert pca.explained_variance_.sum() == pytest.approx(4.0, rel=1e-12)


@pytest.mark.parametrize("solver", SOLVERS)
def test_usarrests_unscaled_matches_r_prcomp(solver):
    X = load_usarrests().data
    pca = PCA(svd_solver=solver).fit(X)
    # R prints 6 decimals here: half a unit in the last place is 5e-7
    np.testing.assert_allclose(np.sqrt(pca.explained_variance_), R_SDEV_UNSCALED, rtol=0, atol=5e-7)
    np.testing.assert_allclose(pca.mean_, ISLR_MEANS, rtol=0, atol=1e-9)


# ---------------------------------------------------------------------------
# Standardisation
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("shape", [(50, 5), (200, 30), (30, 12)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_standardize_is_pca_of_correlation_matrix(shape, solver):
    X = make_data(*shape, seed=7)
    n, d = shape
    pca = PCA(standardize=True, svd_solver=solver).fit(X)
    R = np.corrcoef(X, rowvar=False)
    eigenvalues, eigenvectors = np.linalg.eigh(R)
    order = np.argsort(eigenvalues)[::-1]
    eigenvalues, eigenvectors = eigenvalues[order], eigenvectors[:, order]
    k = min(n, d)
    assert eigenvalues.sum() == pytest.approx(d, rel=1e-12)  # trace of a correlation matrix
    np.testing.assert_allclose(pca.explained_variance_, eigenvalues[:k], rtol=0, atol=1e-12 * d)
    assert pca.explained_variance_.sum() == pytest.approx(d, rel=1e-10)
    signs = row_signs(pca.components_, eigenvectors[:, :k].T)
    # both sides are eigenvectors of a d × d matrix: error ≈ eps·λ_max / gap
    tol = 100 * EPS * eigenvalues[0] / spectral_gaps(eigenvalues)[:k] + 1e-12
    err = np.abs(signs[:, None] * pca.components_ - eigenvectors[:, :k].T).max(axis=1)
    assert np.all(err <= tol), (err, tol)
    np.testing.assert_allclose(pca.scale_, X.std(axis=0, ddof=1), rtol=1e-12)


@pytest.mark.parametrize("solver", SOLVERS)
def test_standardize_matches_standardscaler_pipeline(solver):
    X = make_data(40, 6, seed=3)
    n = X.shape[0]
    pca = PCA(standardize=True, svd_solver=solver).fit(X)
    scaler = StandardScaler().fit(X)
    ref = SklearnPCA(svd_solver="full").fit(scaler.transform(X))
    # StandardScaler divides by the population standard deviation (ddof = 0),
    # pcalib by the sample one (ddof = 1), the denominator of its covariance.
    # So scikit-learn's scaled data is pcalib's times sqrt(n / (n - 1)):
    # identical axes and ratios, variances larger by n / (n - 1) and scores by
    # sqrt(n / (n - 1)).
    factor = n / (n - 1)
    signs = row_signs(pca.components_, ref.components_)
    np.testing.assert_allclose(signs[:, None] * pca.components_, ref.components_, atol=1e-10)
    np.testing.assert_allclose(
        pca.explained_variance_ * factor, ref.explained_variance_, rtol=1e-10
    )
    np.testing.assert_allclose(
        pca.explained_variance_ratio_, ref.explained_variance_ratio_, rtol=1e-10
    )
    Z_ref = ref.transform(scaler.transform(X))
    np.testing.assert_allclose(
        pca.transform(X) * signs * np.sqrt(factor), Z_ref, rtol=0, atol=1e-10 * np.abs(Z_ref).max()
    )
    np.testing.assert_allclose(pca.scale_ / np.sqrt(factor), scaler.scale_, rtol=1e-12)


# ---------------------------------------------------------------------------
# n_components, sign convention, solvers
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_fraction_picks_smallest_k_reaching_fraction(seed, solver):
    X = make_data(60, 8, seed=seed) @ np.random.default_rng(seed).standard_normal((8, 8))
    eigenvalues = reference_spectrum(X)
    cumulative = np.cumsum(eigenvalues) / eigenvalues.sum()
    checked = 0
    for fraction in (0.05, 0.3, 0.5, 0.7, 0.8, 0.9, 0.95, 0.99, 0.999):
        # keep the test away from ties decided by rounding
        assert np.min(np.abs(cumulative - fraction)) > 1e-9
        expected = next(k for k in range(1, len(eigenvalues) + 1) if cumulative[k - 1] >= fraction)
        pca = PCA(n_components=fraction, svd_solver=solver).fit(X)
        assert pca.n_components_ == expected, fraction
        assert pca.components_.shape == (expected, 8)
        assert pca.transform(X).shape == (60, expected)
        assert pca.fit_transform(X).shape == (60, expected)
        assert pca.explained_variance_ratio_.sum() >= fraction
        if expected > 1:
            assert pca.explained_variance_ratio_[:-1].sum() < fraction
        checked += 1
    assert checked == 9


@pytest.mark.parametrize("shape", [(30, 6), (6, 30), (5, 5)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_int_and_none_n_components(shape):
    n, d = shape
    X = make_data(n, d, seed=11)
    full = PCA().fit(X)
    assert full.n_components_ == min(n, d)
    assert full.components_.shape == (min(n, d), d)
    assert full.transform(X).shape == (n, min(n, d))
    assert full.n_features_in_ == d
    assert full.n_samples_ == n
    for k in range(1, min(n, d) + 1):
        pca = PCA(n_components=k).fit(X)
        assert pca.n_components_ == k
        assert pca.transform(X).shape == (n, k)
        # Wide data uses the Gram solver, whose eigensolver depends on k (a
        # partial decomposition for large matrices): the same numbers up to
        # the last bits, not bit for bit.
        np.testing.assert_allclose(pca.components_, full.components_[:k], rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(
            pca.explained_variance_, full.explained_variance_[:k], rtol=1e-12
        )
    # numpy integers are ints too
    assert PCA(n_components=np.int64(2)).fit(X).n_components_ == 2


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_sign_convention(shape, solver):
    for seed in range(5):
        X = make_data(*shape, seed=seed)
        pca = PCA(svd_solver=solver).fit(X)
        rows = np.arange(pca.n_components_)
        largest = np.argmax(np.abs(pca.components_), axis=1)
        assert np.all(pca.components_[rows, largest] > 0)
        # flipping the data flips the raw axes; the convention undoes it
        flipped = PCA(svd_solver=solver).fit(-X)
        r = identified_rank(*shape)
        np.testing.assert_allclose(flipped.components_[:r], pca.components_[:r], atol=1e-10)


def test_sign_convention_on_a_hand_made_example():
    # variance 8/3 along the first feature, 2/3 along the second
    X = np.array([[-2.0, 0.0], [0.0, -1.0], [2.0, 0.0], [0.0, 1.0]])
    for solver in SOLVERS:
        pca = PCA(svd_solver=solver).fit(X)
        np.testing.assert_allclose(pca.components_, np.eye(2), atol=1e-15)
        np.testing.assert_allclose(pca.explained_variance_, [8 / 3, 2 / 3], rtol=1e-14)
        np.testing.assert_allclose(pca.explained_variance_ratio_, [0.8, 0.2], rtol=1e-14)


@pytest.mark.parametrize("standardize", [False, True])
@pytest.mark.parametrize("shape", [(50, 5), (200, 30), (20, 40)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_solvers_agree(shape, standardize):
    X = make_data(*shape, seed=5)
    r = identified_rank(*shape)
    svd = PCA(standardize=standardize, svd_solver="full").fit(X)
    cov = PCA(standardize=standardize, svd_solver="covariance_eigh").fit(X)
    lam = svd.explained_variance_
    # the covariance solver's eigenvectors are accurate to eps·λ_max / gap
    tol = 100 * EPS * lam[0] / spectral_gaps(lam)[:r] + 1e-12
    err = np.abs(svd.components_[:r] - cov.components_[:r]).max(axis=1)
    assert np.all(err <= tol), (err, tol)  # same signs: both use the convention
    np.testing.assert_allclose(cov.explained_variance_, lam, rtol=0, atol=1e-12 * lam[0])
    np.testing.assert_allclose(
        cov.explained_variance_ratio_, svd.explained_variance_ratio_, rtol=0, atol=1e-12
    )
    np.testing.assert_array_equal(cov.mean_, svd.mean_)


# ---------------------------------------------------------------------------
# Projection of new data
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("standardize", [False, True])
@pytest.mark.parametrize("solver", SOLVERS)
def test_transform_new_data_uses_training_statistics(solver, standardize):
    X = make_data(40, 5, seed=21)
    X_new = make_data(9, 5, seed=22) * 3.0 - 7.0
    pca = PCA(n_components=3, standardize=standardize, svd_solver=solver).fit(X)
    mean = X.mean(axis=0)
    np.testing.assert_allclose(pca.mean_, mean, rtol=1e-13)
    centred = X_new - mean
    if standardize:
        centred = centred / X.std(axis=0, ddof=1)
    expected = centred @ pca.components_.T
    np.testing.assert_allclose(pca.transform(X_new), expected, rtol=1e-12, atol=1e-12)
    # using the new data's own mean would give something else
    own = (X_new - X_new.mean(axis=0)) @ pca.components_.T
    assert not np.allclose(pca.transform(X_new), own)
    # a single new sample is fine
    np.testing.assert_allclose(pca.transform(X_new[:1]), expected[:1], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("standardize", [False, True])
def test_inverse_transform_by_hand(standardize, solver):
    X = make_data(40, 5, seed=23)
    X_new = make_data(6, 5, seed=24) * 2.0
    mean = X.mean(axis=0)
    scale = X.std(axis=0, ddof=1) if standardize else np.ones(5)
    for k in (2, 5):
        pca = PCA(n_components=k, standardize=standardize, svd_solver=solver).fit(X)
        V = pca.components_
        Z = pca.transform(X_new)
        # X_hat = Z V * scale + mean, the map back to the original units
        np.testing.assert_allclose(
            pca.inverse_transform(Z), Z @ V * scale + mean, rtol=1e-12, atol=1e-12
        )
        expected = ((X_new - mean) / scale) @ V.T @ V * scale + mean
        np.testing.assert_allclose(pca.inverse_transform(Z), expected, rtol=1e-10, atol=1e-10)
    # with every component the round trip is the identity, also for new data
    np.testing.assert_allclose(
        pca.inverse_transform(pca.transform(X_new)), X_new, rtol=0, atol=1e-10
    )


@pytest.mark.parametrize("standardize", [False, True])
def test_fit_does_not_modify_its_input(standardize):
    X = make_data(30, 4, seed=2)
    X_copy = X.copy()
    pca = PCA(standardize=standardize).fit(X)
    np.testing.assert_array_equal(X, X_copy)
    Z = pca.transform(X)
    np.testing.assert_array_equal(X, X_copy)
    Z_copy = Z.copy()
    pca.inverse_transform(Z)
    np.testing.assert_array_equal(Z, Z_copy)


def test_accepts_lists_and_dataframes():
    X = make_data(20, 3, seed=4)
    expected = PCA().fit(X).transform(X)
    np.testing.assert_allclose(PCA().fit(X.tolist()).transform(X.tolist()), expected, atol=1e-12)
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    pca = PCA().fit(frame)
    np.testing.assert_array_equal(pca.feature_names_in_, ["a", "b", "c"])
    np.testing.assert_allclose(pca.transform(frame), expected, atol=1e-12)


# ---------------------------------------------------------------------------
# scikit-learn integration
# ---------------------------------------------------------------------------


def make_classification_data(seed=0):
    rng = np.random.default_rng(seed)
    n, d = 120, 8
    y = rng.integers(0, 2, n)
    X = rng.standard_normal((n, d))
    X[:, 0] += 4.0 * y  # the class is visible along a high-variance direction
    X[:, 0] *= 3.0
    return X, y


def test_pipeline_with_logistic_regression():
    X, y = make_classification_data()
    pipe = make_pipeline(PCA(n_components=2), LogisticRegression())
    pipe.fit(X, y)
    assert pipe.score(X, y) > 0.9
    # the pipeline is exactly the composition of its steps
    pca = PCA(n_components=2).fit(X)
    clf = LogisticRegression().fit(pca.transform(X), y)
    np.testing.assert_array_equal(pipe.predict(X), clf.predict(pca.transform(X)))
    np.testing.assert_allclose(
        pipe.predict_proba(X), clf.predict_proba(pca.transform(X)), atol=1e-10
    )
    # nested parameters reach pcalib's estimator
    pipe.set_params(pca__n_components=3).fit(X, y)
    assert pipe.named_steps["pca"].n_components_ == 3
    assert pipe.named_steps["logisticregression"].coef_.shape == (1, 3)


def test_get_params_set_params_clone():
    pca = PCA(n_components=3, standardize=True, svd_solver="covariance_eigh")
    # scikit-learn's defaults for the names it shares, then pcalib's extra
    sklearn_defaults = SklearnPCA().get_params()
    set_here = {"n_components", "svd_solver"}
    defaults = {name: value for name, value in sklearn_defaults.items() if name not in set_here}
    defaults["max_iter"] = 1000
    defaults["tol"] = 1e-10  # pcalib's: tol only stops subspace iteration
    assert pca.get_params() == {
        "n_components": 3,
        "standardize": True,
        "svd_solver": "covariance_eigh",
        **defaults,
    }
    assert pca.set_params(n_components=0.5, svd_solver="full") is pca
    assert pca.get_params() == {
        "n_components": 0.5,
        "standardize": True,
        "svd_solver": "full",
        **defaults,
    }

    X = make_data(30, 5, seed=8)
    pca.fit(X)
    copy = clone(pca)
    assert copy is not pca
    assert copy.get_params() == pca.get_params()
    assert not hasattr(copy, "components_")  # clone is unfitted
    np.testing.assert_array_equal(copy.fit(X).components_, pca.components_)
    with pytest.raises(ValueError, match="Invalid parameter"):
        pca.set_params(n_compnents=2)


def test_feature_names_out():
    X = make_data(30, 5, seed=9)
    pca = PCA(n_components=3).fit(X)
    np.testing.assert_array_equal(pca.get_feature_names_out(), ["pca0", "pca1", "pca2"])
    assert PCA().fit(X).get_feature_names_out().tolist() == [f"pca{i}" for i in range(5)]
    # the names are also the columns of a pandas output
    out = PCA(n_components=2).set_output(transform="pandas").fit(X).transform(X)
    assert list(out.columns) == ["pca0", "pca1"]
    pipe = Pipeline([("pca", PCA(n_components=2)), ("clf", LogisticRegression())])
    pipe.fit(X, (X[:, 0] > X[:, 0].mean()).astype(int))
    assert pipe[:-1].get_feature_names_out().tolist() == ["pca0", "pca1"]


# ---------------------------------------------------------------------------
# Refit
# ---------------------------------------------------------------------------


def test_failed_refit_leaves_the_fitted_estimator_unchanged():
    """A refit that raises must not leave a half-updated model behind."""
    rng = np.random.default_rng(11)
    X_good = rng.normal(size=(30, 3))
    model = PCA(n_components=2, standardize=True).fit(X_good)
    before = {name: getattr(model, name).copy() for name in ("mean_", "scale_", "components_")}
    X_bad = X_good.copy()
    X_bad[:, 1] = 0.1  # a constant column cannot be standardised
    with pytest.raises(ValueError, match=r"standardize=True cannot scale feature\(s\) \[1\]"):
        model.fit(X_bad)
    for name, value in before.items():
        np.testing.assert_array_equal(getattr(model, name), value)
    np.testing.assert_allclose(
        model.transform(X_good), PCA(2, standardize=True).fit_transform(X_good)
    )


# ---------------------------------------------------------------------------
# Iteration attributes of the direct solvers
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("n_components", [2, 0.8, None])
@pytest.mark.parametrize("solver", SOLVERS)
def test_direct_solvers_record_no_iteration(solver, n_components):
    X = make_data(40, 6, seed=12)
    pca = PCA(n_components=n_components, svd_solver=solver).fit(X)
    assert pca.svd_solver_ == solver
    assert pca.n_iter_ == 0
    assert pca.converged_ is True
    assert pca.iterated_power_ == 0
    # one entry: the variance captured by the components kept, computed here
    # from the data and the fitted axes
    X_c = X - X.mean(axis=0)
    captured = np.sum((X_c @ pca.components_.T) ** 2) / (len(X) - 1)
    assert pca.objective_history_.shape == (1,)
    np.testing.assert_allclose(pca.objective_history_, [captured], rtol=1e-12)


# ---------------------------------------------------------------------------
# Units of the data: fit(c X) is fit(X) rescaled, at every scale float64 holds
# ---------------------------------------------------------------------------

ALL_SOLVERS = ["full", "covariance_eigh", "gram", "subspace", "randomized"]
# 1e-160 makes the squares of the data subnormal, 1e150 brings them near
# overflow; the others are everyday changes of unit.
SCALES = [1e-160, 1e-8, 1e-3, 255.0, 1e8, 1e150]
# Smallest positive subnormal. A variance times c² = 1e-320 is subnormal, and
# float64 holds it only to within half of this (not to a relative 1e-6).
SUBNORMAL_STEP = 2.0**-1074


def unit_size_data(seed=0):
    """24 × 6 data of unit size with distinct variances and a non-zero mean.

    Its sum of squares is below 144, so that ``1e150 * X`` still passes the
    overflow check on the sum of squared entries (at most about 1.7e302).
    """
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((24, 6)) * [3.0, 2.0, 1.5, 1.0, 0.7, 0.4] + rng.uniform(-2, 2, 6)
    return X / np.abs(X).max()


def assert_scaled(actual, reference, c, power):
    """``actual == reference · c**power`` to 1e-6 of its largest entry (or the subnormal step)."""
    expected = np.asarray(reference, dtype=float)
    for _ in range(power):  # one factor at a time: c**2 itself may be subnormal
        expected = expected * c
    tolerance = 1e-6 * np.abs(expected).max() + 2 * SUBNORMAL_STEP
    np.testing.assert_allclose(actual, expected, rtol=0, atol=tolerance)


@pytest.mark.parametrize("c", SCALES, ids=lambda c: f"{c:g}")
@pytest.mark.parametrize("standardize", [False, True])
@pytest.mark.parametrize("solver", ALL_SOLVERS)
def test_fit_of_rescaled_data_is_the_fit_rescaled(solver, standardize, c):
    X = unit_size_data()
    params = dict(n_components=3, standardize=standardize, svd_solver=solver, random_state=0)
    reference = PCA(**params).fit(X)
    scaled = PCA(**params).fit(c * X)
    # standardised data have no units: only mean_ and scale_ carry them
    unit = 1.0 if standardize else c
    assert_scaled(scaled.components_, reference.components_, c, 0)
    assert_scaled(scaled.explained_variance_ratio_, reference.explained_variance_ratio_, c, 0)
    assert_scaled(scaled.singular_values_, reference.singular_values_, unit, 1)
    assert_scaled(scaled.explained_variance_, reference.explained_variance_, unit, 2)
    assert_scaled(scaled.objective_history_, reference.objective_history_, unit, 2)
    assert_scaled(scaled.mean_, reference.mean_, c, 1)
    if standardize:
        assert_scaled(scaled.scale_, reference.scale_, c, 1)
    else:
        assert scaled.scale_ is None
    for name in ("n_components_", "n_iter_", "converged_", "iterated_power_", "svd_solver_"):
        assert getattr(scaled, name) == getattr(reference, name), name
    Z = reference.transform(X)
    assert_scaled(scaled.transform(c * X), Z, unit, 1)
    assert_scaled(scaled.inverse_transform(Z * unit), reference.inverse_transform(Z), c, 1)


@pytest.mark.parametrize("c", [1e-160, 1e-170], ids=lambda c: f"{c:g}")
@pytest.mark.parametrize("solver", ALL_SOLVERS)
def test_data_whose_squares_underflow_give_the_principal_axes(solver, c):
    """At 1e-160 the squared singular values are subnormal; at 1e-170 they are 0."""
    X = unit_size_data(seed=1)
    eigenvalues, eigenvectors = np.linalg.eigh(np.cov(X, rowvar=False))  # at scale 1
    pca = PCA(3, svd_solver=solver, random_state=0).fit(c * X)
    V = eigenvectors[:, ::-1][:, :3].T
    np.testing.assert_allclose(
        pca.components_ * row_signs(pca.components_, V)[:, None], V, atol=1e-8
    )
    np.testing.assert_allclose(
        pca.singular_values_ / c, np.sqrt(eigenvalues[::-1][:3] * (len(X) - 1)), rtol=1e-8
    )
    np.testing.assert_allclose(
        pca.explained_variance_ratio_, eigenvalues[::-1][:3] / eigenvalues.sum(), rtol=1e-8
    )


@pytest.mark.parametrize("solver", ALL_SOLVERS)
def test_standardize_a_column_whose_variance_underflows(solver):
    """A column times 1e-170 varies, although its variance underflows to 0.

    The correlation matrix does not depend on the units of the columns, so the
    reference is NumPy's correlation matrix of the data before the change.
    """
    X = np.random.default_rng(0).uniform(0.1, 1.0, (12, 5))
    X_tiny = X.copy()
    X_tiny[:, 0] *= 1e-170
    pca = PCA(2, standardize=True, svd_solver=solver, random_state=0).fit(X_tiny)
    eigenvalues, eigenvectors = np.linalg.eigh(np.corrcoef(X, rowvar=False))
    V = eigenvectors[:, ::-1][:, :2].T
    assert pca.n_components_ == 2 and pca.components_.shape == (2, 5)
    np.testing.assert_allclose(
        pca.components_ * row_signs(pca.components_, V)[:, None], V, atol=1e-8
    )
    np.testing.assert_allclose(pca.explained_variance_, eigenvalues[::-1][:2], rtol=1e-8)
    std = np.std(X, axis=0, ddof=1)
    np.testing.assert_allclose(pca.scale_ / [1e-170, 1, 1, 1, 1], std, rtol=1e-12)
    signs = row_signs(pca.components_, V)
    Z = (X - X.mean(axis=0)) / std @ V.T
    np.testing.assert_allclose(pca.transform(X_tiny) * signs, Z, atol=1e-8)


@pytest.mark.parametrize("c", [1e-160, 2.0**-600, 1.0, 1e150], ids=lambda c: f"{c:g}")
def test_center_and_scale_divides_only_extreme_data_by_a_power_of_two(c):
    X = unit_size_data(seed=2) * c
    X_centered, mean, scale, exponent, total_variance = center_and_scale(X, standardize=False)
    np.testing.assert_array_equal(mean, X.mean(axis=0))
    reference = X - mean
    if c == 1.0:  # the everyday case costs nothing: no rescaling
        assert exponent == 0
        np.testing.assert_array_equal(X_centered, reference)
    else:
        assert 0.5 <= np.abs(X_centered).max() < 1.0
        np.testing.assert_allclose(
            np.ldexp(X_centered, exponent),
            reference,
            rtol=1e-15,
            atol=1e-15 * np.abs(reference).max(),
        )
    assert scale is None
    np.testing.assert_allclose(
        total_variance, np.var(np.ldexp(reference, -exponent), axis=0, ddof=1).sum(), rtol=1e-12
    )


# ---------------------------------------------------------------------------
# random_state is checked by every solver
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "random_state, error", [("bogus", TypeError), (1.5, TypeError), (-1, ValueError)]
)
@pytest.mark.parametrize("solver", ALL_SOLVERS)
def test_bad_random_state_is_refused_by_every_solver(solver, random_state, error):
    with pytest.raises(error, match="random_state"):
        PCA(2, svd_solver=solver, random_state=random_state).fit(make_data(20, 4, seed=13))


# ---------------------------------------------------------------------------
# What "auto" chooses on tall data, and what it costs in accuracy
# ---------------------------------------------------------------------------


def planted_spectrum(n_samples, singular_values, seed):
    """Centred data ``U diag(s) Vᵀ`` with exactly known singular values ``s``.

    ``U`` (n × d) has orthonormal columns orthogonal to the vector of ones, so
    the data is centred and its principal axes are the rows of ``Vᵀ``.
    """
    rng = np.random.default_rng(seed)
    d = singular_values.size
    ones = np.ones((n_samples, 1)) / np.sqrt(n_samples)
    basis, _ = np.linalg.qr(np.hstack([ones, rng.standard_normal((n_samples, d))]))
    U = basis[:, 1:]
    V, _ = np.linalg.qr(rng.standard_normal((d, d)))
    return (U * singular_values) @ V.T, V.T


@pytest.mark.parametrize(
    ("shape", "expected"),
    [((100, 10), "covariance_eigh"), ((99, 10), "full"), ((12_000, 1_000), "covariance_eigh")],
)
def test_auto_takes_the_covariance_route_on_tall_data(shape, expected):
    assert choose_svd_solver(*shape) == expected
    assert choose_svd_solver(shape[0] * 20, 1_001) == "full"  # a d x d eigenproblem too large


def test_auto_on_ordinary_tall_data_agrees_with_the_svd():
    X = make_data(2_000, 30, seed=4)
    auto = PCA(n_components=10).fit(X)
    svd = PCA(n_components=10, svd_solver="full").fit(X)
    assert auto.svd_solver_ == "covariance_eigh"
    np.testing.assert_allclose(auto.components_, svd.components_, rtol=0, atol=1e-10)
    np.testing.assert_allclose(auto.explained_variance_, svd.explained_variance_, rtol=1e-10)
    np.testing.assert_allclose(auto.singular_values_, svd.singular_values_, rtol=1e-10)


@pytest.mark.parametrize("n_components", [4, 1 - 5e-11])  # the fraction keeps 4 as well
def test_auto_falls_back_to_the_svd_when_squaring_loses_the_kept_variances(n_components):
    # lambda_4 / lambda_1 = 1e-10 among the kept components
    s = np.array([1.0, 1e-2, 1e-4, 1e-5, 1e-7, 1e-8])
    X, Vt = planted_spectrum(600, s, seed=5)
    X = X + 3.0
    auto = PCA(n_components=n_components).fit(X)
    assert auto.svd_solver_ == "full" and auto.n_components_ == 4
    np.testing.assert_allclose(auto.singular_values_, s[:4], rtol=1e-8)
    np.testing.assert_allclose(np.abs(auto.components_ @ Vt[:4].T), np.eye(4), atol=1e-8)
    # the covariance route alone would miss that accuracy on the smallest kept value
    covariance = PCA(n_components=4, svd_solver="covariance_eigh").fit(X)
    assert abs(covariance.singular_values_[3] / s[3] - 1) > 1e-8


def refuse(name):
    """A stand-in for a pcalib.pca function that a route must not call."""

    def refused(*args, **kwargs):
        raise AssertionError(f"{name} was called")

    return refused


def test_auto_on_tall_data_with_a_moderate_mean_makes_no_centred_copy(monkeypatch):
    # offsets of about 5 next to spreads of 1 to 3: the products of the raw data
    # keep the kept variances to 1e-10, so "auto" needs neither a centred copy nor an SVD
    X = make_data(4_000, 40, seed=7)
    svd = PCA(n_components=10, svd_solver="full").fit(X)
    monkeypatch.setattr(pcalib.pca, "center_and_scale", refuse("center_and_scale"))
    auto = PCA(n_components=10).fit(X)
    assert auto.svd_solver_ == "covariance_eigh"
    np.testing.assert_allclose(auto.mean_, X.mean(axis=0), rtol=1e-14)
    np.testing.assert_allclose(auto.components_, svd.components_, rtol=0, atol=1e-10)
    np.testing.assert_allclose(auto.explained_variance_, svd.explained_variance_, rtol=1e-10)
    np.testing.assert_allclose(
        auto.explained_variance_ratio_, svd.explained_variance_ratio_, rtol=1e-10
    )
    np.testing.assert_allclose(auto.noise_variance_, svd.noise_variance_, rtol=1e-10)


def test_auto_centres_first_when_the_mean_dwarfs_the_spread():
    # a mean of 1e5 next to spreads of 1: XᵀX - n x̄x̄ᵀ cancels about 10 digits
    X = make_data(4_000, 20, seed=8) + 1e5
    exact = PCA(n_components=5, svd_solver="full").fit(X).explained_variance_
    mean, C = covariance_from_raw_products(X)
    raw = np.linalg.eigvalsh(C)[::-1][:5]
    assert np.max(np.abs(raw / exact - 1)) > 1e-8  # the raw products would lose digits
    assert not covariance_is_accurate(raw, 5, mean_norm2=float(mean @ mean))
    auto = PCA(n_components=5).fit(X)
    assert auto.svd_solver_ == "covariance_eigh"  # centred first, then accurate
    np.testing.assert_allclose(auto.explained_variance_, exact, rtol=1e-10)


def test_auto_goes_straight_to_the_svd_when_no_covariance_route_is_accurate(monkeypatch):
    # keeping every component of a tall matrix: the smallest variance is below
    # eps / COVARIANCE_RTOL of the largest, so the centred covariance is skipped too
    s = np.array([1.0, 1e-3, 1e-6, 1e-9])
    X, _ = planted_spectrum(400, s, seed=9)
    monkeypatch.setattr(
        pcalib.pca, "principal_axes_covariance", refuse("principal_axes_covariance")
    )
    auto = PCA().fit(X + 2.0)
    assert auto.svd_solver_ == "full"
    np.testing.assert_allclose(auto.singular_values_, s, rtol=1e-6)


def test_raw_products_give_the_covariance_of_the_centred_data():
    X = make_data(300, 6, seed=10)
    mean, C = covariance_from_raw_products(X)
    np.testing.assert_allclose(mean, X.mean(axis=0), rtol=1e-14)
    np.testing.assert_allclose(C, np.cov(X, rowvar=False), rtol=1e-11, atol=1e-12)


def test_the_covariance_routes_accuracy_is_what_the_fallback_assumes():
    # Near the accepted limit lambda_k / lambda_1 = eps / COVARIANCE_RTOL, the
    # covariance route loses no more than about COVARIANCE_RTOL of lambda_k.
    ratio = 2 * EPS / COVARIANCE_RTOL
    s = np.sqrt(np.array([1.0, 0.1, 0.01, ratio, ratio / 10]))
    X, _ = planted_spectrum(5_000, s, seed=6)
    pca = PCA(n_components=4, svd_solver="covariance_eigh").fit(X)
    exact = s**2 / (5_000 - 1)
    assert covariance_is_accurate(exact, 4) and not covariance_is_accurate(exact, 5)
    assert np.max(np.abs(pca.explained_variance_ / exact[:4] - 1)) < 10 * COVARIANCE_RTOL
    assert PCA(n_components=4).fit(X).svd_solver_ == "covariance_eigh"
