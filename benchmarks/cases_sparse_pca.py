"""Chapter 5: pcalib's elastic net and ``ElasticNetSPCA`` against scikit-learn."""

import numpy as np
import scipy.linalg
import sklearn.decomposition
import sklearn.linear_model
from harness import Case

import pcalib
from pcalib.elastic_net import elastic_net, elastic_net_gram, elastic_net_n_nonzero

# Five latent factors with these standard deviations, each loading on its own
# block of variables (``sparse_factors``). They are distinct, so that the five
# principal directions are well separated: the leading covariance eigenvalues
# are about 216, 154, 131, 72 and 35 at 2 000 x 500, the sixth 2.3.
FACTOR_STDS = (3.0, 2.6, 2.2, 1.8, 1.4)
# scikit-learn's SparsePCA penalty, chosen by hand (1, 3, 5 and 8 tried) for the
# blocks' number of non-zeros per component at both sizes: 1 (its default)
# leaves about 180 at full size, 3 about 21, 5 and 8 exactly 20.
SKLEARN_ALPHA = 5.0


def sizes(quick):
    """``(n, d, non-zeros per factor)`` of the chapter's data."""
    return (500, 100, 10) if quick else (2_000, 500, 20)


def sparse_factors(n_samples, n_features, *, per_factor, seed=0):
    """Data with five sparse latent directions, and the true supports.

    ``X = F Wᵀ + E + offset``: the ``n × 5`` factors ``F`` are Gaussian with
    standard deviations ``FACTOR_STDS``; column ``j`` of the ``d × 5`` loading
    matrix ``W`` is non-zero only on its own block of ``per_factor`` variables
    (disjoint blocks drawn at random), with magnitudes uniform in [0.5, 1.5]
    and random signs; ``E`` is standard Gaussian noise; every variable gets a
    random offset of about 5. Returned C-contiguous float64, with the list of
    the five blocks (sorted index arrays).
    """
    rng = np.random.default_rng(seed)
    stds = np.asarray(FACTOR_STDS)
    k = stds.size
    order = rng.permutation(n_features)
    supports = [np.sort(order[j * per_factor : (j + 1) * per_factor]) for j in range(k)]
    W = np.zeros((n_features, k))
    for j, support in enumerate(supports):
        W[support, j] = rng.uniform(0.5, 1.5, per_factor) * rng.choice([-1.0, 1.0], per_factor)
    F = rng.standard_normal((n_samples, k)) * stds
    noise = rng.standard_normal((n_samples, n_features))
    X = F @ W.T + noise + 5.0 * rng.standard_normal(n_features)
    return np.ascontiguousarray(X, dtype=np.float64), supports


def elastic_net_optimality(X, y, beta, l1, l2):
    """KKT violation and relative duality gap of ``β`` for ``‖y - Xβ‖² + l2‖β‖² + l1‖β‖₁``.

    With ``g = 2 (Xᵀ(y - Xβ) - l2 β)``, optimality is ``g_m = l1 sign(β_m)``
    where ``β_m ≠ 0`` and ``|g_m| ≤ l1`` where ``β_m = 0``; the violation is the
    largest deviation, over ``l1``. The gap is that of the lasso on the
    augmented data ``[X; √l2 I]``, ``[y; 0]``: the primal ``P(β)`` minus the
    dual ``2θᵀỹ - ‖θ‖²`` at the feasible point ``θ = s r̃`` (the augmented
    residual, scaled so that ``‖2X̃ᵀθ‖∞ ≤ l1``), over ``P(β)``.
    """
    r = y - X @ beta
    g = 2.0 * (X.T @ r - l2 * beta)
    violation = np.where(
        beta != 0.0, np.abs(g - l1 * np.sign(beta)), np.maximum(np.abs(g) - l1, 0.0)
    )
    squared = r @ r + l2 * (beta @ beta)
    primal = squared + l1 * np.abs(beta).sum()
    s = min(1.0, l1 / np.abs(g).max())
    dual = 2.0 * s * (r @ y) - s * s * squared
    return float(violation.max() / l1), float((primal - dual) / primal)


def elastic_net_agreement(X, y, l1, l2):
    """Accuracy function: pcalib's ``(β, n_iter)`` against a fitted scikit-learn ``ElasticNet``."""

    def accuracy(pcalib_result, skl):
        beta, n_iter = pcalib_result
        rel = np.abs(beta - skl.coef_).max() / np.abs(beta).max()
        kkt_a, gap_a = elastic_net_optimality(X, y, beta, l1, l2)
        kkt_b, gap_b = elastic_net_optimality(X, y, skl.coef_, l1, l2)
        return (
            f"max|db|/max|b| {rel:.1e}; "
            f"nnz {np.count_nonzero(beta)}/{np.count_nonzero(skl.coef_)}; "
            f"KKT/l1 {kkt_a:.0e}/{kkt_b:.0e}; gap/P {gap_a:.0e}/{gap_b:.0e}; "
            f"sweeps {n_iter}/{skl.n_iter_}"
        )

    return accuracy


def sparse_pca_elastic_net(quick):
    """Chapter 5: pcalib's elastic net against scikit-learn's ``ElasticNet``.

    The problem is the first regression of ``ElasticNetSPCA``'s first
    iteration: ``y = Xs a₁`` on ``Xs = (X - mean) / √(n - 1)`` (so that
    ``Xsᵀ Xs`` is the covariance the estimator works on), with ``a₁`` the first
    principal direction, the estimator's default ``l2_penalty`` and an
    ``l1_penalty`` inside the range that gives ``per_factor`` non-zeros: the
    geometric mean of the smallest penalties giving at most ``s`` and at most
    ``s - 1`` non-zeros (found untimed).
    """
    n, d, s = sizes(quick)
    X, _ = sparse_factors(n, d, per_factor=s, seed=0)
    # Fortran order, so that scikit-learn's coordinate descent does not copy Xs.
    Xs = np.asfortranarray((X - X.mean(axis=0)) / np.sqrt(n - 1))
    G = Xs.T @ Xs
    y = Xs @ scipy.linalg.eigh(G, subset_by_index=[d - 1, d - 1], check_finite=False)[1][:, 0]
    c = Xs.T @ y
    l2 = pcalib.ElasticNetSPCA().l2_penalty
    knots = [elastic_net_n_nonzero(G, c, n_nonzero=m, l2_penalty=l2)[1] for m in (s, s - 1)]
    l1 = float(np.sqrt(knots[0] * knots[1]))
    # scikit-learn minimises ‖y - Xw‖²/(2n) + αρ‖w‖₁ + α(1 - ρ)‖w‖²/2; times 2n
    # this is the problem above with l1 = 2nαρ and l2 = nα(1 - ρ).
    settings = dict(
        alpha=(l1 + 2.0 * l2) / (2.0 * n), l1_ratio=l1 / (l1 + 2.0 * l2), fit_intercept=False
    )
    penalties = dict(l1_penalty=l1, l2_penalty=l2)
    accuracy = elastic_net_agreement(Xs, y, l1, l2)
    shape = f"{n}x{d}, l1_penalty={l1:.3g}, l2_penalty={l2:g}"
    return [
        Case(
            name=f"elastic_net(X, y) {shape}",
            reference_name="sklearn ElasticNet(fit_intercept=False).fit",
            pcalib=lambda: elastic_net(Xs, y, **penalties),
            reference=lambda: sklearn.linear_model.ElasticNet(**settings).fit(Xs, y),
            accuracy=accuracy,
            target=1.5,
        ),
        Case(
            name=f"elastic_net_gram(G, c) {shape}",
            reference_name="info: sklearn ElasticNet(precompute=G).fit",
            pcalib=lambda: elastic_net_gram(G, c, **penalties),
            reference=lambda: sklearn.linear_model.ElasticNet(precompute=G, **settings).fit(Xs, y),
            accuracy=accuracy,
        ),
    ]


def sparse_pca_agreement(X, supports, reference_kind):
    """Accuracy function: ``ElasticNetSPCA`` against scikit-learn's ``SparsePCA`` or ``PCA``.

    Reports the non-zeros per component, the share of the true block entries
    found (for each block, its largest overlap with one component's support),
    the adjusted variance ratio of Zou, Hastie and Tibshirani (``Σ R_jj² /
    trace`` with ``R`` from the QR of the centred scores ``Xc Vᵀ``, computed
    here for both) and the ``n_iter_`` of each.
    """
    Xc = X - X.mean(axis=0)
    total = float(np.einsum("ij,ij->", Xc, Xc))

    def adjusted_ratio(components):
        V = components / np.linalg.norm(components, axis=1, keepdims=True)
        R = scipy.linalg.qr(Xc @ V.T, mode="r", check_finite=False)[0]
        return float(np.sum(np.diag(R) ** 2) / total)

    def found(components):
        hits = sum(max(np.isin(s, np.flatnonzero(v)).sum() for v in components) for s in supports)
        return hits / sum(s.size for s in supports)

    def accuracy(spca, skl):
        nnz = ",".join(map(str, np.count_nonzero(spca.components_, axis=1)))
        common = (
            f"pcalib nnz {nnz}, supports found {found(spca.components_):.0%}, "
            f"adj var ratio {adjusted_ratio(spca.components_):.4f} "
            f"(own {spca.explained_variance_ratio_.sum():.4f}), n_iter_ {spca.n_iter_}"
        )
        if reference_kind == "pca":
            return (
                f"{common}; PCA var ratio {skl.explained_variance_ratio_.sum():.4f} "
                f"(solver {getattr(skl, '_fit_svd_solver', '?')})"
            )
        skl_nnz = ",".join(map(str, np.count_nonzero(skl.components_, axis=1)))
        return (
            f"{common}; sklearn nnz {skl_nnz}, found {found(skl.components_):.0%}, "
            f"adj var ratio {adjusted_ratio(skl.components_):.4f}, n_iter_ {skl.n_iter_}"
        )

    return accuracy


def sparse_pca_fit(quick):
    """Chapter 5: ``ElasticNetSPCA.fit`` against scikit-learn's ``SparsePCA`` and ``PCA`` (info)."""
    n, d, s = sizes(quick)
    k = len(FACTOR_STDS)
    X, supports = sparse_factors(n, d, per_factor=s, seed=0)

    def fit_pcalib():
        return pcalib.ElasticNetSPCA(n_components=k, n_nonzero=s).fit(X)

    shape = f"{n}x{d}, k={k}, n_nonzero={s}"
    return [
        Case(
            name=f"ElasticNetSPCA.fit {shape}",
            reference_name=f"info: sklearn SparsePCA(alpha={SKLEARN_ALPHA:g}).fit",
            pcalib=fit_pcalib,
            reference=lambda: sklearn.decomposition.SparsePCA(
                n_components=k, alpha=SKLEARN_ALPHA, random_state=0
            ).fit(X),
            accuracy=sparse_pca_agreement(X, supports, "sparse"),
            repeat=2,
        ),
        Case(
            name=f"ElasticNetSPCA.fit {shape}",
            reference_name=f"floor: sklearn PCA({k}).fit",
            pcalib=fit_pcalib,
            reference=lambda: sklearn.decomposition.PCA(n_components=k, random_state=0).fit(X),
            accuracy=sparse_pca_agreement(X, supports, "pca"),
            repeat=1,
        ),
    ]
