"""One representative of the factorisations with the same product ``W H``.

``W H = (W D)(D⁻¹ H)`` for any positive diagonal ``D`` and any permutation.
:func:`drop_dead_components` zeroes both halves of a component where one is
zero; without penalties, :func:`normalise` gives the rows of ``H`` unit
Euclidean norm (moving the scale into ``W``) and orders the components by
decreasing ``‖w_j‖ ‖h_j‖``.
"""

import numpy as np


def drop_dead_components(W, H):
    """Zero ``h_j`` where ``w_j = 0`` and ``w_j`` where ``h_j = 0``.

    ``W H`` is unchanged and the penalties can only fall; afterwards a zero
    row of ``H`` is exactly a dead component, whose coefficient
    :meth:`NMF.transform` reports as 0.
    """
    dead = (W.max(axis=0) <= 0) | (H.max(axis=1) <= 0)
    W, H = W.copy(), H.copy()
    W[:, dead] = 0.0
    H[dead] = 0.0
    return W, H


def normalise(W, H):
    """Unit-norm rows of ``H``, components by decreasing ``‖w_j‖ ‖h_j‖``."""
    norms = np.linalg.norm(H, axis=1)
    safe = np.where(norms > 0, norms, 1.0)
    W, H = W * safe, H / safe[:, np.newaxis]
    order = np.argsort(-np.linalg.norm(W, axis=0), kind="stable")
    return W[:, order], H[order]
