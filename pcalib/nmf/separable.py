"""Separable NMF: the successive projection algorithm (SPA), eq. ``eq-nmf-spa``.

When the parts ``H`` are among the samples, SPA finds them in one pass.
"""

import numpy as np

from .._validation import as_float_matrix, check_n_components

__all__ = ["successive_projection"]


def successive_projection(X, n_components):
    """Indices of ``n_components`` rows of ``X`` that span the others: SPA.

    The successive projection algorithm (Gillis and Vavasis 2014),
    eq. ``eq-nmf-spa``, on the rows of ``X`` (the samples): take the row of
    largest Euclidean norm, project every row onto the orthogonal complement
    of it, and repeat. If ``X = W H`` is separable, with ``H`` among the rows
    of ``X`` (those rows of ``W`` are the rows of the identity) and every row
    of ``W`` non-negative with sum at most 1, the rows found are the rows of
    ``H``, up to order, and SPA is robust to a small noise.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The data; finite.
    n_components : int
        ``k``, ``1 ≤ k ≤ min(n_samples, n_features)``: after ``d`` steps the
        projected rows are 0.

    Returns
    -------
    rows : ndarray of shape (n_components,)
        Indices of the rows, in the order chosen.
    """
    R = as_float_matrix(X, name="X").copy()
    k = check_n_components(n_components, min(R.shape))
    if not np.any(R):
        raise ValueError("X must have a non-zero entry: SPA picks rows by their norm.")
    R /= np.abs(R).max()  # relative to the data, so that squares cannot overflow
    rows = []
    for _ in range(k):
        norms = np.einsum("ij,ij->i", R, R)
        chosen = int(np.argmax(norms))
        rows.append(chosen)
        if norms[chosen] > 0:
            u = R[chosen] / np.sqrt(norms[chosen])
            R -= np.outer(R @ u, u)
    return np.array(rows)
