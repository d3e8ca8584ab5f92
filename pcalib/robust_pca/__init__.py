"""Robust PCA: principal component pursuit and L1 factorisation (chapter 7, ``book/robust_pca.md``).

Principal component pursuit (Candès, Li, Ma and Wright) splits a matrix into a
low-rank part and a sparse part (eq. ``eq-rpca-pcp``):

    minimise ‖L‖_* + λ ‖S‖₁   subject to   L + S = M ,

with ``λ = 1/√max(n₁, n₂)`` by default (``RobustPCA(l1_penalty=λ)`` sets
another). The inexact augmented Lagrangian method of Lin, Chen and Ma solves
it (:func:`~pcalib.robust_pca.pursuit.principal_component_pursuit`): with the
augmented Lagrangian ``‖L‖_* + λ‖S‖₁ + ⟨Y, M - L - S⟩ + (μ/2)‖M - L - S‖²_F``
(eq. ``eq-rpca-lagrangian``), minimising over ``L`` is singular-value
thresholding at ``1/μ`` and over ``S`` entrywise soft thresholding at
``λ/μ`` (eqs. ``eq-rpca-L-step`` and ``eq-rpca-S-step``).

Modules, one per idea:

* :mod:`~pcalib.robust_pca.thresholds`, the proximal steps: singular-value
  thresholding, the ``S``-step with and without noise (stable principal
  component pursuit, Zhou et al., eq. ``eq-rpca-spcp``), the row soft
  threshold and the hard threshold;
* :mod:`~pcalib.robust_pca.pursuit`, the augmented Lagrangian loop shared by
  :class:`RobustPCA` and :func:`outlier_pursuit`;
* :mod:`~pcalib.robust_pca.estimator`, the estimator :class:`RobustPCA`;
* :mod:`~pcalib.robust_pca.outliers`, :func:`outlier_pursuit` (Xu, Caramanis
  and Sanghavi, eq. ``eq-rpca-op``): the sum of the Euclidean norms of the
  rows of ``S`` in place of ``‖S‖₁``, for whole corrupted samples;
* :mod:`~pcalib.robust_pca.alternating_projections`, :func:`altproj`, the
  non-convex alternative with a given rank;
* :mod:`~pcalib.robust_pca.l1`, :func:`l1_low_rank`, the fit
  ``X ≈ 1 mᵀ + Z Wᵀ`` under the entrywise L1 loss by iteratively
  reweighted least squares, for the chapter's comparison with PCA.

The truncated SVDs they use are those of :mod:`pcalib._linalg`
(:func:`~pcalib._linalg.thresholded_svd`,
:func:`~pcalib._linalg.warm_randomized_svd`, :func:`~pcalib._linalg.top_svd`).
"""

from .._linalg import RANDOMIZED_SVD_POWER_ITERATIONS as RANDOMIZED_SVD_POWER_ITERATIONS
from .._linalg import TRUNCATED_SVD_SHARE as TRUNCATED_SVD_SHARE
from .._linalg import thresholded_svd as thresholded_svd
from .._linalg import warm_randomized_svd as warm_randomized_svd
from .alternating_projections import AltProjResult, altproj
from .estimator import AUTO_RANDOMIZED_MIN_SIZE as AUTO_RANDOMIZED_MIN_SIZE
from .estimator import RobustPCA
from .estimator import default_lambda as default_lambda
from .l1 import irls_weights as irls_weights
from .l1 import l1_low_rank
from .l1 import weighted_row_fits as weighted_row_fits
from .outliers import OutlierPursuitResult, outlier_pursuit
from .outliers import default_outlier_lambda as default_outlier_lambda
from .pursuit import predict_rank as predict_rank
from .pursuit import principal_component_pursuit as principal_component_pursuit
from .thresholds import hard_threshold as hard_threshold
from .thresholds import row_soft_threshold, singular_value_threshold
from .thresholds import sparse_and_noise_step as sparse_and_noise_step
from .thresholds import sparse_and_noise_sum as sparse_and_noise_sum

__all__ = [
    "AltProjResult",
    "OutlierPursuitResult",
    "RobustPCA",
    "altproj",
    "l1_low_rank",
    "outlier_pursuit",
    "row_soft_threshold",
    "singular_value_threshold",
]
