"""pcalib: the small, tested library of the course on PCA and its variants.

Modules mirror the chapters of the book:

* :mod:`pcalib.pca` – chapter 1, the :class:`PCA` estimator and
  :func:`parallel_analysis` for choosing the number of components;
* :mod:`pcalib.factorization` – chapter 1, PCA as a matrix factorisation
  ``X ≈ Z Wᵀ`` solved by alternating least squares and gradient descent;
* :mod:`pcalib.high_dim` – chapter 2, solvers for wide data and for the top k;
* :mod:`pcalib.sparse_centering` – chapter 2, centring sparse data without
  densifying it;
* :mod:`pcalib.range_finder` – chapter 2, :func:`range_error_bound` and
  :func:`adaptive_range_finder`, the a-posteriori error of a range found;
* :mod:`pcalib.hard_threshold` – chapter 2, :func:`optimal_hard_threshold`
  for choosing the number of components;
* :mod:`pcalib.out_of_core` – chapter 2, PCA of Dask arrays (optional Dask);
* :mod:`pcalib.kernels` – chapter 3, kernel functions;
* :mod:`pcalib.kernel_pca` – chapter 3, :class:`KernelPCA` (exact, Nyström,
  random Fourier features);
* :mod:`pcalib.ppca` – chapter 4, :class:`PPCA` (closed form, EM, missing
  data, sampling) and :func:`ppca_evidence` for choosing the number of
  components;
* :mod:`pcalib.factor_analysis` – chapter 4, :class:`FactorAnalysis` (EM,
  varimax);
* :mod:`pcalib.bayesian_pca` – chapter 4, :func:`bayesian_pca` (Bayesian PCA
  with automatic relevance determination);
* :mod:`pcalib.elastic_net` – chapter 5, the elastic net by coordinate descent;
* :mod:`pcalib.sparse_pca` – chapter 5, :class:`ElasticNetSPCA` (Zou, Hastie
  and Tibshirani's sparse PCA) and :func:`truncated_power_method` (Yuan and
  Zhang's);
* :mod:`pcalib.nmf` – chapter 6, :class:`NMF` (multiplicative updates for
  the Frobenius and KL losses, HALS, ANLS) and :func:`successive_projection`
  for separable data;
* :mod:`pcalib.matrix_factorization` – chapter 6, ridge, sparse and logistic
  factorisations;
* :mod:`pcalib.robust_pca` – chapter 7, :class:`RobustPCA` (principal
  component pursuit), :func:`outlier_pursuit` (whole-sample outliers),
  :func:`altproj` (non-convex robust PCA by alternating projections) and
  the L1 factorisation :func:`l1_low_rank`;
* :mod:`pcalib.datasets` – data that needs no network.
"""

from ._linalg import flip_signs, soft_threshold
from .bayesian_pca import BayesianPCAResult, bayesian_pca
from .factor_analysis import FactorAnalysis
from .factorization import FactorizationResult, pca_als, pca_gradient_descent
from .hard_threshold import HardThresholdResult, optimal_hard_threshold
from .kernel_pca import KernelPCA, KernelRankWarning
from .nmf import NMF, successive_projection
from .out_of_core import DaskPCAResult, pca_dask
from .pca import PCA, ParallelAnalysisResult, parallel_analysis
from .ppca import PPCA, PPCAEvidenceResult, ppca_evidence
from .range_finder import AdaptiveRangeResult, adaptive_range_finder, range_error_bound
from .robust_pca import (
    AltProjResult,
    OutlierPursuitResult,
    RobustPCA,
    altproj,
    l1_low_rank,
    outlier_pursuit,
)
from .sparse_pca import ElasticNetSPCA, truncated_power_method

__all__ = [
    "NMF",
    "PCA",
    "PPCA",
    "AdaptiveRangeResult",
    "AltProjResult",
    "BayesianPCAResult",
    "DaskPCAResult",
    "ElasticNetSPCA",
    "FactorAnalysis",
    "FactorizationResult",
    "HardThresholdResult",
    "KernelPCA",
    "KernelRankWarning",
    "OutlierPursuitResult",
    "PPCAEvidenceResult",
    "ParallelAnalysisResult",
    "RobustPCA",
    "adaptive_range_finder",
    "altproj",
    "bayesian_pca",
    "flip_signs",
    "l1_low_rank",
    "optimal_hard_threshold",
    "outlier_pursuit",
    "parallel_analysis",
    "pca_als",
    "pca_dask",
    "pca_gradient_descent",
    "ppca_evidence",
    "range_error_bound",
    "soft_threshold",
    "successive_projection",
    "truncated_power_method",
]
__version__ = "0.1.0"
