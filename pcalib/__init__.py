"""pcalib: the small, tested library of the course on PCA and its variants.

Modules mirror the chapters of the book:

* :mod:`pcalib.pca` – chapter 1, the :class:`PCA` estimator;
* :mod:`pcalib.factorization` – chapter 1, PCA as a matrix factorisation
  ``X ≈ Z W`` solved by alternating least squares and gradient descent;
* :mod:`pcalib.datasets` – data that needs no network.
"""

from .factorization import FactorizationResult, pca_als, pca_gradient_descent
from .pca import PCA

__all__ = ["PCA", "FactorizationResult", "pca_als", "pca_gradient_descent"]
__version__ = "0.1.0"
