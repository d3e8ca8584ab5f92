"""Non-negative least squares by block principal pivoting (Kim and Park 2011).

``min_{x ≥ 0} ½ xᵀ Q x - qᵀ x`` for many right-hand sides ``q`` at once
(eq. ``eq-nmf-nnls-kkt``): the exact solver of an ANLS half-step
(:func:`pcalib.nmf.updates.anls_update`).
"""

import numpy as np

from .units import TINY


def block_principal_pivoting(Q, q, *, guess=None, max_iter=None):
    """Non-negative least squares ``min_{x ≥ 0} ½ xᵀ Q x - qᵀ x`` for many ``q`` at once.

    Block principal pivoting of Kim and Park (2011), eq. ``eq-nmf-nnls-kkt``.
    ``Q`` (k × k) is symmetric positive definite and ``q`` (k × m) holds one
    right-hand side per column. For each column, a guess ``F`` of the set of
    positive entries gives ``x_F = Q_FF⁻¹ q_F``, ``x = 0`` elsewhere, and the
    gradient ``y = Q x - q``, zero on ``F``; the guess is right when
    ``x_F ≥ 0`` and ``y ≥ 0`` off ``F`` (the KKT conditions). The entries
    that break them all change sides at once while their number falls; when
    it stops falling three times, only the one with the largest index moves
    (the backup rule), which cannot cycle. Signs are tested to ``1e-12`` of the
    column's scale, rounding.
    ``guess`` (k × m, boolean) is the first guess of ``F``, for example the
    positive entries of the previous iterate; by default it is empty. The
    backup rule ends the exchanges in finitely many steps; ``max_iter`` (by
    default ``10 k + 100``) only guards against rounding, and the last ``x``,
    clipped at 0, is returned if it is reached.

    Returns ``x`` of shape (k, m).
    """
    k, m = q.shape
    max_iter = 10 * k + 100 if max_iter is None else max_iter
    if guess is None or not guess.any():
        positive = np.zeros((k, m), dtype=bool)  # the guess F, column by column
        x, y = np.zeros((k, m)), -q
    else:
        positive = np.array(guess, dtype=bool)
        x, y = solve_on_guess(Q, q, positive)
    # initial=0: a problem with no unknowns (k = 0) gives x of shape (0, m)
    slack = 1e-12 * np.maximum(np.abs(q).max(axis=0, initial=0.0), TINY)
    fewest = np.full(m, k + 1)  # the fewest infeasible entries seen so far
    chances = np.full(m, 3)  # full exchanges left without progress
    for _ in range(max_iter):
        scale_x = 1e-12 * np.maximum(np.abs(x).max(axis=0, initial=0.0), TINY)
        infeasible = (positive & (x < -scale_x)) | (~positive & (y < -slack))
        count = infeasible.sum(axis=0)
        if not count.any():
            break
        progress = (count > 0) & (count < fewest)
        fewest[progress], chances[progress] = count[progress], 3
        stalled = (count > 0) & ~progress
        patient = stalled & (chances > 0)
        chances[patient] -= 1
        full = progress | patient
        positive[:, full] ^= infeasible[:, full]
        for column in np.flatnonzero(stalled & ~patient):  # backup rule
            last = np.flatnonzero(infeasible[:, column])[-1]
            positive[last, column] = not positive[last, column]
        changed = count > 0
        x[:, changed], y[:, changed] = solve_on_guess(Q, q[:, changed], positive[:, changed])
    return np.maximum(x, 0.0)


def solve_on_guess(Q, q, positive):
    """``x`` and ``y = Q x - q`` for the guesses ``positive`` (k × m), all columns at once.

    Column ``c`` solves ``Q_FF x_F = q_F`` on its guess ``F``: the system with
    the rows and columns outside ``F`` replaced by those of the identity and
    ``q`` set to 0 there, so one batched solve serves every guess.
    """
    free = positive.T  # m × k
    systems = np.where(free[:, :, np.newaxis] & free[:, np.newaxis, :], Q, 0.0)
    systems[:, np.arange(Q.shape[0]), np.arange(Q.shape[0])] += ~free
    rhs = np.where(free, q.T, 0.0)[:, :, np.newaxis]
    try:
        x = np.linalg.solve(systems, rhs)[:, :, 0].T
    except np.linalg.LinAlgError:  # collinear columns of the fixed factor
        solutions = [
            np.linalg.lstsq(S, r, rcond=None)[0][:, 0] for S, r in zip(systems, rhs, strict=True)
        ]
        x = np.stack(solutions).T
    y = Q @ x - q
    y[positive] = 0.0
    return x, y
