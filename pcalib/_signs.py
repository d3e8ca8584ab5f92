"""pcalib's sign convention, shared by every solver and chapter.

An eigenvector or singular vector is defined only up to its sign. pcalib fixes
it: in every component the entry of largest absolute value is positive (on a
tie, the first such entry decides), so that printed results do not depend on
the solver, the machine or the run.
"""

import numpy as np


def flip_signs(components):
    """Apply pcalib's sign convention to the rows of ``components``.

    Parameters
    ----------
    components : ndarray of shape (k, n_features)
        Principal axes as rows.

    Returns
    -------
    components : ndarray of shape (k, n_features)
        The same axes, each multiplied by +1 or -1 so that its entry of largest
        absolute value is positive.
    signs : ndarray of shape (k,)
        The factors applied, to flip the matching scores the same way.
    """
    largest = np.argmax(np.abs(components), axis=1)
    signs = np.sign(components[np.arange(components.shape[0]), largest])
    signs[signs == 0] = 1.0
    return components * signs[:, np.newaxis], signs
