"""pcalib's public API, enumerated for the tests that must cover all of it.

The entry points are the names in ``__all__`` of ``pcalib`` and of its
public modules (the other public names of a module are the building blocks
the book shows; they trust their caller). Tests parametrised from
:func:`estimator_configurations` and :func:`entry_point_functions` pick up a
new estimator or function without being edited. A new function needs one
entry in :data:`VALID_CALLS` (how to call it correctly), and a new solver or
mode of an estimator one entry in :data:`CONFIGURATIONS`;
``test_public_api.py`` fails until they are there.

Scale laws
----------
pcalib's results do not depend on the units of the data: fitting ``c·X``
gives the fit of ``X`` with each attribute multiplied by ``c**p`` for its
power ``p`` (:func:`scale_power`); parameters that carry units are
multiplied too (:func:`scaled_parameters`).
"""

import importlib
import inspect
import pkgutil

import numpy as np
import scipy.sparse
from sklearn.base import BaseEstimator

import pcalib
from pcalib import NMF, PCA, PPCA, ElasticNetSPCA, FactorAnalysis, KernelPCA, RobustPCA

# Every configuration that runs different code (solvers, approximations,
# missing data, losses). An estimator without an entry runs with its defaults.
CONFIGURATIONS = {
    PCA: [
        {},
        {"standardize": True},
        {"svd_solver": "full"},
        {"svd_solver": "covariance_eigh"},
        {"svd_solver": "gram"},
        {"svd_solver": "subspace", "random_state": 0},
        {"svd_solver": "randomized", "random_state": 0},
        {"svd_solver": "arpack", "n_components": 1, "random_state": 0},
        {"n_components": 0.9},
        {"n_components": "mle"},
        {"whiten": True},
    ],
    KernelPCA: [
        {},
        {"kernel": "rbf"},
        {"kernel": "poly"},
        {"kernel": "rbf", "eigen_solver": "dense"},
        {"kernel": "rbf", "n_components": 3, "eigen_solver": "arpack"},
        {"kernel": "rbf", "eigen_solver": "randomized", "random_state": 0},
        {"kernel": "rbf", "approximation": "nystrom", "n_landmarks": 10, "random_state": 0},
        {"kernel": "rbf", "approximation": "rff", "random_state": 0},
    ],
    FactorAnalysis: [
        {},
        {"n_components": 2, "rotation": "varimax"},
        {"n_components": 2, "rotation": "quartimax"},
    ],
    PPCA: [
        {},
        {"solver": "closed_form"},
        {"solver": "em", "random_state": 0},
        {"allow_missing": True, "random_state": 0},
        {"ddof": 1},
    ],
    ElasticNetSPCA: [
        {},
        # with all components, this small problem cycles (chapter 5)
        {"n_components": 1, "n_nonzero": 2},
        {"standardize": True, "l1_penalty": 0.1},
    ],
    NMF: [
        {},
        {"extrapolate": False},
        {"solver": "mu"},
        {"solver": "pg"},
        {"solver": "anls"},
        {"solver": "mu", "beta_loss": "kullback-leibler"},
        {"solver": "mu", "beta_loss": "itakura-saito"},
    ],
    RobustPCA: [
        {"random_state": 0},
        {"svd_solver": "full"},
        {"svd_solver": "randomized", "random_state": 0},
        # stable principal component pursuit, with its fixed penalty
        {"noise_level": 0.01, "rho": 1.0, "random_state": 0},
    ],
}


def public_modules():
    """Pcalib's modules whose names do not start with an underscore."""
    return [
        importlib.import_module(f"pcalib.{info.name}")
        for info in pkgutil.iter_modules(pcalib.__path__)
        if not info.name.startswith("_")
    ]


def _exported(module):
    return [getattr(module, name) for name in getattr(module, "__all__", ())]


def public_estimators():
    """The estimator classes in ``pcalib.__all__``, sorted by name."""
    classes = {
        obj for obj in _exported(pcalib) if isinstance(obj, type) and issubclass(obj, BaseEstimator)
    }
    return sorted(classes, key=lambda cls: cls.__name__)


def estimator_configurations():
    """One unfitted estimator per configuration of every public estimator, seeded."""
    configurations = []
    for cls in public_estimators():
        for params in CONFIGURATIONS.get(cls, [{}]):
            estimator = cls(**params)
            if "random_state" in estimator.get_params():
                estimator.set_params(random_state=params.get("random_state", 0))
            configurations.append(estimator)
    return configurations


def entry_point_functions():
    """The functions in the ``__all__`` of pcalib and of its public modules."""
    functions = {
        obj
        for module in [pcalib, *public_modules()]
        for obj in _exported(module)
        if inspect.isfunction(obj)
    }
    return sorted(functions, key=lambda f: f"{f.__module__}.{f.__name__}")


def function_id(function):
    return f"{function.__module__.removeprefix('pcalib.')}.{function.__name__}"


def configuration_id(estimator):
    return repr(estimator).replace("\n", "").replace(" ", "")


# ----------------------------------------------------------------------------
# Data


def positive_data(n_samples=40, n_features=6, seed=0):
    """Entries in [0.1, 1] on a decaying spectrum: valid for every estimator."""
    rng = np.random.default_rng(seed)
    Z = rng.uniform(0.1, 1.0, (n_samples, 3))
    W = rng.uniform(0.1, 1.0, (3, n_features)) * np.array([[3.0], [1.5], [0.7]])
    return Z @ W + rng.uniform(0.0, 0.2, (n_samples, n_features))


def data_for(estimator, X):
    """``X`` as ``estimator`` takes it: with a few NaNs where missing data is allowed."""
    if getattr(estimator, "allow_missing", False):
        X = X.copy()
        X[::7, 1] = np.nan
    return X


# ----------------------------------------------------------------------------
# Valid calls of the functions: (args, kwargs) built from a generator.


def _gram_problem(rng):
    X = rng.normal(size=(30, 5))
    y = X @ np.array([1.0, -2.0, 0.0, 0.0, 0.5]) + 0.1 * rng.normal(size=30)
    return X.T @ X, X.T @ y


def _sparse_data(rng):
    return scipy.sparse.random(30, 8, density=0.3, random_state=rng, format="csr")


VALID_CALLS = {
    "_linalg.flip_signs": lambda rng: ((rng.normal(size=(2, 5)),), {}),
    "_linalg.soft_threshold": lambda rng: ((rng.normal(size=(4, 3)), 0.5), {}),
    "factorization.pca_als": lambda rng: ((rng.normal(size=(20, 5)), 2), {"random_state": 0}),
    "factorization.pca_gradient_descent": lambda rng: (
        (rng.normal(size=(20, 5)), 2),
        {"random_state": 0},
    ),
    "pca.parallel_analysis": lambda rng: (
        (rng.normal(size=(30, 5)),),
        {"n_draws": 10, "random_state": 0},
    ),
    "ppca.ppca_evidence": lambda rng: ((rng.normal(size=(30, 5)),), {"criterion": "laplace"}),
    "bayesian_pca.bayesian_pca": lambda rng: ((rng.normal(size=(30, 5)),), {}),
    "nmf.separable.successive_projection": lambda rng: ((rng.uniform(size=(20, 5)), 3), {}),
    "robust_pca.l1.l1_low_rank": lambda rng: ((rng.normal(size=(20, 5)), 2), {}),
    "robust_pca.alternating_projections.altproj": lambda rng: (
        (rng.normal(size=(20, 8)), 2),
        {"random_state": 0},
    ),
    "robust_pca.thresholds.singular_value_threshold": lambda rng: (
        (rng.normal(size=(8, 5)), 1.0),
        {},
    ),
    "robust_pca.thresholds.row_soft_threshold": lambda rng: ((rng.normal(size=(8, 5)), 1.0), {}),
    "robust_pca.outliers.outlier_pursuit": lambda rng: (
        (rng.normal(size=(20, 5)),),
        {"random_state": 0},
    ),
    "out_of_core.pca_dask": lambda rng: ((rng.normal(size=(40, 5)), 2), {"random_state": 0}),
    "hard_threshold.optimal_hard_threshold": lambda rng: (
        (np.linalg.svd(rng.normal(size=(30, 8)), compute_uv=False), (30, 8)),
        {"noise_variance": None},
    ),
    "range_finder.range_error_bound": lambda rng: (
        (rng.normal(size=(30, 8)), np.linalg.qr(rng.normal(size=(30, 3)))[0]),
        {"n_probes": 5, "random_state": 0},
    ),
    "range_finder.adaptive_range_finder": lambda rng: (
        (rng.normal(size=(30, 8)),),
        {"tol": 0.1, "n_probes": 3, "max_rank": None, "random_state": 0},
    ),
    "sparse_centering.sparse_column_moments": lambda rng: ((_sparse_data(rng),), {}),
    "sparse_centering.centered_operator": lambda rng: (
        (_sparse_data(rng), rng.uniform(size=8)),
        {"scale": None},
    ),
    "high_dim.principal_axes_sparse": lambda rng: (
        (_sparse_data(rng), rng.uniform(size=8), None, 2, "arpack"),
        {"n_oversamples": 10, "iterated_power": "auto", "random_state": 0},
    ),
    "datasets.load_usarrests": lambda rng: ((), {}),
    "datasets.load_pitprops": lambda rng: ((), {}),
    "datasets.load_faces": lambda rng: ((), {}),
    "datasets.make_spectrum": lambda rng: ((30, 4, [4.0, 2.0, 1.0, 0.5]), {"random_state": 0}),
    "datasets.make_low_rank": lambda rng: ((30, 6, 2), {"random_state": 0}),
    "datasets.make_low_rank_plus_sparse": lambda rng: (
        (30, 20, 2),
        {"sparsity": 0.05, "random_state": 0},
    ),
    "datasets.make_spirals": lambda rng: ((), {"n_samples": 50, "random_state": 0}),
    "kernels.linear_kernel": lambda rng: ((rng.normal(size=(6, 3)),), {}),
    "kernels.polynomial_kernel": lambda rng: ((rng.normal(size=(6, 3)),), {}),
    "kernels.rbf_kernel": lambda rng: ((rng.normal(size=(6, 3)),), {}),
    "kernels.kernel_matrix": lambda rng: ((rng.normal(size=(6, 3)),), {}),
    "elastic_net.elastic_net": lambda rng: (
        (rng.normal(size=(30, 5)), rng.normal(size=30)),
        {"l1_penalty": 0.1, "l2_penalty": 0.1},
    ),
    "elastic_net.elastic_net_gram": lambda rng: (
        _gram_problem(rng),
        {"l1_penalty": 1.0, "l2_penalty": 0.1},
    ),
    "elastic_net.elastic_net_n_nonzero": lambda rng: (
        _gram_problem(rng),
        {"n_nonzero": 2, "l2_penalty": 0.1},
    ),
    "sparse_pca.truncated_power_method": lambda rng: (
        (_gram_problem(rng)[0], 2),
        {"n_components": 2},
    ),
    "matrix_factorization.ridge_factorization": lambda rng: (
        (rng.normal(size=(20, 5)), 2),
        {"l2_penalty": 0.1, "random_state": 0},
    ),
    "matrix_factorization.sparse_factorization": lambda rng: (
        (rng.normal(size=(20, 5)), 2),
        {"l1_penalty": 0.1, "random_state": 0},
    ),
    "matrix_factorization.logistic_factorization": lambda rng: (
        ((rng.uniform(size=(20, 5)) > 0.5).astype(float), 2),
        {"random_state": 0, "max_iter": 50},
    ),
}


def valid_call(function, seed=0):
    """``(args, kwargs)`` of a correct call of ``function``."""
    return VALID_CALLS[function_id(function)](np.random.default_rng(seed))


# ----------------------------------------------------------------------------
# Scale laws


# The power p of c in attribute(c·X) = c**p · attribute(X), by attribute name.
_COMMON_POWERS = {
    "mean_": 1,
    "scale_": 1,
    "components_": 0,
    "explained_variance_": 2,
    "explained_variance_ratio_": 0,
    "pca_explained_variance_ratio_": 0,
    "singular_values_": 1,
    "objective_history_": 2,
    "noise_variance_": 2,
    "W_": 1,
    "X_fit_": 1,
    "landmarks_": 1,
    "low_rank_": 1,
    "sparse_": 1,
    "dual_": 0,
    "dual_residual_": 0,
    "mu_": -1,
    "l1_penalty_": 0,
    "residual_history_": 0,
    "reconstruction_err_": 1,
    "eigenvectors_": 0,
}


def scale_power(estimator, attribute):
    """Power ``p`` with ``attribute(c·X) = c**p attribute(X)``; None if not a number.

    A string ``"log n·d"`` marks the log-likelihood, which shifts by
    ``-n·d·log c`` instead.
    """
    standardized = getattr(estimator, "standardize", False)
    kernel = getattr(estimator, "kernel", None)
    if isinstance(estimator, PPCA) and attribute == "log_likelihood_history_":
        return "log n·d"
    if isinstance(estimator, FactorAnalysis):
        # components_ is Wᵀ, in the units of X; the log-likelihoods shift
        return {
            "components_": 1,
            "loglike_": "log n·d",
            "log_likelihood_history_": "log n·d",
        }.get(attribute, _COMMON_POWERS.get(attribute))
    if standardized and attribute in (
        "explained_variance_",
        "singular_values_",
        "objective_history_",
    ):
        return 0
    if isinstance(estimator, ElasticNetSPCA) and attribute == "l1_penalty_":
        return 0 if standardized else 2
    if isinstance(estimator, KernelPCA):
        return _kernel_pca_power(kernel, attribute)
    if isinstance(estimator, NMF):
        return _nmf_power(estimator, attribute)
    return _COMMON_POWERS.get(attribute)


def _kernel_pca_power(kernel, attribute):
    """Linear kernel: K scales as c². Others, with gamma scaled by c⁻²: K is unchanged."""
    kernel_power = 2 if kernel == "linear" else 0
    powers = {
        "eigenvalues_": kernel_power,
        "explained_variance_": kernel_power,
        "kernel_column_means_": kernel_power,
        "kernel_mean_": kernel_power,
        "gamma_": -2,
        "random_weights_": -1,
        "random_offsets_": 0,
        "feature_map_": 0,
        "feature_mean_": 0,
    }
    return powers.get(attribute, _COMMON_POWERS.get(attribute))


def _nmf_penalised(estimator):
    return estimator.alpha_W != 0 or estimator.alpha_H not in ("same", 0)


def _nmf_power(estimator, attribute):
    """Unpenalised: H keeps unit-norm rows and W carries the units of X.

    Penalised: both factors are in units of √X (the penalties are then given
    in the units that keep the problem the same). The β-divergence has
    degree β in X: 2 for the Frobenius loss, 1 for Kullback–Leibler, 0 for
    Itakura–Saito; the reconstruction error is its square root up to a factor.
    """
    beta = pcalib.nmf.beta_value(estimator.beta_loss)
    powers = {
        "components_": 0.5 if _nmf_penalised(estimator) else 0,
        "reconstruction_err_": beta / 2,
        "objective_history_": beta,
    }
    return powers.get(attribute, _COMMON_POWERS.get(attribute))


def transform_power(estimator):
    """Power of ``c`` in ``transform(c·X)`` (of the estimator fitted on ``c·X``)."""
    if getattr(estimator, "standardize", False) or getattr(estimator, "whiten", False):
        return 0
    if isinstance(estimator, KernelPCA):
        return 1 if estimator.kernel == "linear" else 0
    if isinstance(estimator, (PPCA, FactorAnalysis)):
        return 0  # the posterior mean of a latent variable of unit variance
    if isinstance(estimator, NMF):
        return 0.5 if _nmf_penalised(estimator) else 1
    return 1


def scaled_parameters(fitted, c):
    """The parameters of the estimator ``fitted`` on ``X``, in the units of ``c·X``."""
    params = {}
    if isinstance(fitted, KernelPCA) and fitted.kernel != "linear":
        params["gamma"] = fitted.gamma_ / c**2
    if isinstance(fitted, RobustPCA) and fitted.noise_level:
        params["noise_level"] = fitted.noise_level * c  # a Frobenius norm, in units of X
    if isinstance(fitted, ElasticNetSPCA) and not fitted.standardize:
        # both penalties are added to the covariance matrix, in units of X²
        params["l2_penalty"] = fitted.l2_penalty * c**2
        if fitted.n_nonzero is None:
            params["l1_penalty"] = fitted.l1_penalty * c**2
    return params
