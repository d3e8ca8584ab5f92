"""pcalib: the small, tested library of the course on PCA and its variants.

Modules mirror the chapters of the book:

* :mod:`pcalib.pca` – chapter 1, the :class:`PCA` estimator and
  :func:`parallel_analysis` for choosing the number of components;
* :mod:`pcalib.factorization` – chapter 1, PCA as a matrix factorisation
  ``X ≈ Z Wᵀ`` solved by alternating least squares and gradient descent;
* :mod:`pcalib.high_dim` – chapter 2, solvers for wide data and for the top k,
  and :func:`optimal_hard_threshold` for choosing the number of components;
* :mod:`pcalib.out_of_core` – chapter 2, PCA of Dask arrays (optional Dask);
* :mod:`pcalib.kernels` – chapter 3, kernel functions;
* :mod:`pcalib.kernel_pca` – chapter 3, :class:`KernelPCA` (exact, Nyström,
  random Fourier features);
* :mod:`pcalib.ppca` – chapter 4, :class:`PPCA` (closed form, EM, missing
  data, sampling) and :func:`ppca_evidence` for choosing the number of
  components;
* :mod:`pcalib.elastic_net` – chapter 5, the elastic net by coordinate descent;
* :mod:`pcalib.sparse_pca` – chapter 5, :class:`ElasticNetSPCA` (Zou, Hastie
  and Tibshirani's sparse PCA);
* :mod:`pcalib.nmf` – chapter 6, :class:`NMF` (multiplicative updates for
  the Frobenius and KL losses, HALS);
* :mod:`pcalib.matrix_factorization` – chapter 6, ridge, sparse and logistic
  factorisations;
* :mod:`pcalib.robust_pca` – chapter 7, :class:`RobustPCA` (principal
  component pursuit) and the L1 factorisation :func:`l1_low_rank`;
* :mod:`pcalib.datasets` – data that needs no network.
"""

from ._linalg import flip_signs, soft_threshold
from .factorization import FactorizationResult, pca_als, pca_gradient_descent
from .high_dim import HardThresholdResult, optimal_hard_threshold
from .kernel_pca import KernelPCA, KernelRankWarning
from .nmf import NMF
from .out_of_core import DaskPCAResult, pca_dask
from .pca import PCA, ParallelAnalysisResult, parallel_analysis
from .ppca import PPCA, PPCAEvidenceResult, ppca_evidence
from .robust_pca import RobustPCA, l1_low_rank
from .sparse_pca import ElasticNetSPCA

__all__ = [
    "NMF",
    "PCA",
    "PPCA",
    "DaskPCAResult",
    "ElasticNetSPCA",
    "FactorizationResult",
    "HardThresholdResult",
    "KernelPCA",
    "KernelRankWarning",
    "PPCAEvidenceResult",
    "ParallelAnalysisResult",
    "RobustPCA",
    "flip_signs",
    "l1_low_rank",
    "optimal_hard_threshold",
    "parallel_analysis",
    "pca_als",
    "pca_dask",
    "pca_gradient_descent",
    "ppca_evidence",
    "soft_threshold",
]
__version__ = "0.1.0"
