"""The checks of NMF's inputs, with scikit-learn's messages where it has them.

The data (non-negative, finite, without zeros for β ≤ 0) and the factors
given with ``init="custom"``.
"""

import numpy as np
import scipy.sparse

from .._validation import (
    MAX_SUM_OF_SQUARES,
    as_float_matrix,
    as_real_array,
    as_sparse_float_matrix,
    result_dtype,
)


def as_data_matrix(X):
    """``X`` as a finite float64 array or CSR matrix, and the dtype of the results.

    ``float32`` data give ``float32`` results, as in scikit-learn. The fit
    itself runs in ``float64``: the stopping rule compares decreases of the
    objective down to ``tol`` (1e-6) times its start, below the resolution of
    ``float32`` (6e-8 relative per operation, accumulated over sums of n d
    terms), and the results, rounded once, are within half a ``float32`` ulp
    of the ``float64`` fit of the same numbers.
    """
    dtype = result_dtype(X)
    if scipy.sparse.issparse(X):
        return as_sparse_float_matrix(X).tocsr().astype(np.float64, copy=False), dtype
    return as_float_matrix(X, name="X"), dtype


def checked_data(X, beta):
    """``X`` as a float64 array or CSR matrix (:func:`as_data_matrix`) and the dtype of the results.

    Refuses negative entries, and zeros when β ≤ 0 (:func:`check_zeros_for_beta`).
    """
    X_checked, dtype = as_data_matrix(X)
    check_non_negative(X_checked)
    check_zeros_for_beta(X_checked, beta)
    return X_checked, dtype


def check_non_negative(X, *, name="X"):
    """Raise ``ValueError`` naming the smallest entry when ``X`` has a negative one.

    ``X`` is a dense array or a sparse matrix.
    """
    smallest = float(X.min()) if X.shape[0] * X.shape[1] > 0 else 0.0
    if smallest < 0.0:
        where = tuple(int(i) for i in np.unravel_index(X.argmin(), X.shape))
        raise ValueError(
            f"Negative values in data passed to NMF: {name} must be non-negative; its "
            f"smallest entry is {smallest:.6g} at index {where}. Shift or clip the data, "
            "or use PCA."
        )


def check_zeros_for_beta(X, beta):
    """Refuse zeros in ``X`` for β ≤ 0, where ``d_β(0 | y)`` is infinite."""
    if beta <= 0 and X.shape[0] * X.shape[1] > 0 and float(X.min()) == 0:
        raise ValueError(
            "When beta_loss <= 0 and X contains zeros, the solver may diverge. Please add "
            "small values to X, or use a positive beta_loss: d_β(0 | y) is infinite for "
            f"β <= 0 (here β = {beta:g})."
        )


def check_custom_factor(A, shape, *, name, dtype):
    """Validate a factor given with ``init="custom"``, with scikit-learn's messages.

    ``shape`` is the expected shape, ``dtype`` the dtype of ``X`` (float32 or
    float64), which the factor must share. Returns it as a float64 array.
    """
    A_array = as_real_array(A, name=name) if A is not None else None
    if A_array is None or A_array.ndim != 2:
        raise ValueError(
            f"init='custom' needs {name} as a 2-D array of shape {shape}; got "
            f"{None if A_array is None else A_array.shape}."
        )
    for axis, which in ((0, "first"), (1, "second")):
        if A_array.shape[axis] != shape[axis]:
            raise ValueError(
                f"Array with wrong {which} dimension passed to NMF (input {name}). "
                f"Expected {shape[axis]}, but got {A_array.shape[axis]}."
            )
    A_checked = as_float_matrix(A_array, name=name)
    check_non_negative(A_checked, name=name)
    if A_checked.max() == 0:
        raise ValueError(f"Array passed to NMF (input {name}) is full of zeros.")
    if A_array.dtype != dtype:
        raise TypeError(
            f"H and W should have the same dtype as X. Got {name}.dtype = {A_array.dtype}; "
            f"X gives {np.dtype(dtype)}."
        )
    return A_checked


def check_custom_product(W, H, unit):
    """Refuse custom factors whose product is too far from the scale of ``X``.

    ``W`` and ``H`` are in the units of ``X / unit`` (largest entry near 1),
    where the iterations run; ``‖W H‖²_F``, the quadratic term of the
    Frobenius objective, is ``Σ (WᵀW) ∘ (H Hᵀ)`` (k × k products) and must be
    a float64 number below ``MAX_SUM_OF_SQUARES``.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        squared_norm = np.sum((W.T @ W) * (H @ H.T))
    if not squared_norm <= MAX_SUM_OF_SQUARES:
        raise ValueError(
            "W and H (init='custom') are too far from the scale of X: in units of X's "
            f"magnitude ({unit:.3g}), the squares of the entries of their product W @ H "
            "overflow float64. Rescale W and H so that W @ H is near X."
        )
