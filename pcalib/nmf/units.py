"""The units of an NMF fit: powers of two, so that rescaling is exact.

The factors are in units of ``√X`` and the objective in units of ``Xᵝ``
(``d_β(c x | c y) = cᵝ d_β(x | y)``). ``NMF`` fits ``X / 4ᵉ``, whose largest
entry is near 1 (:func:`unit_exponent`), and multiplies the factors back by
``2ᵉ`` and the objective by ``4ᵉᵝ`` (:func:`times_power_of_two`): powers of
two, so the rescaling is exact, nothing overflows, and the constants of the
algorithm (``TINY``, the tolerance, the start) are relative to the data.
"""

import numpy as np
import scipy.sparse

# Added to denominators and arguments of logarithms so that zero rows,
# zero columns and exact zeros never divide by zero. NMF runs on data whose
# largest entry is near 1 (unit_exponent), so this is relative to the data.
TINY = 1e-12


def times_power_of_two(x, exponent):
    """``x 2^exponent``: exact (``np.ldexp``) for an integer exponent; ``inf`` on overflow.

    ``exponent`` is ``2 e β`` or a multiple, a fraction when β is one; 0 stays 0.
    """
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        if float(exponent).is_integer() and abs(exponent) < 2**31:
            return np.ldexp(x, int(exponent))
        x = np.asarray(x, dtype=np.float64)
        return np.where(x == 0, 0.0, x * np.exp2(exponent))


def scaled_data(X, exponent):
    """``X 2^exponent`` for an integer exponent, dense or sparse, exactly."""
    if scipy.sparse.issparse(X):
        X = X.copy()
        X.data = np.ldexp(X.data, exponent)
        return X
    return np.ldexp(X, exponent)


def largest_entry(X):
    """The largest entry of the non-negative, non-empty ``X`` (dense or sparse)."""
    return float(X.max()) if scipy.sparse.issparse(X) else float(X.max(initial=0.0))


def unit_exponent(X):
    """``e`` such that the largest entry of ``X / 4ᵉ`` lies in [1/2, 2]; 0 when ``X = 0``.

    ``NMF`` fits ``X / 4ᵉ`` and multiplies ``W`` and ``H`` by ``2ᵉ``, the
    objective by ``4ᵉᵝ``. ``X`` (dense or sparse) is finite, so ``4ᵉ`` is a
    finite float.
    """
    largest = largest_entry(X)
    return 0 if largest <= 0.0 else int(np.round(np.log2(largest) / 2))
