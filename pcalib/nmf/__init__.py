"""Non-negative matrix factorisation (chapter 6 of the book, ``book/nmf.md``).

``X ≈ W H`` with ``X`` (n × d), ``W`` (n × k) and ``H`` (k × d) all
non-negative. ``W`` and ``H`` are the names of the field (Lee and Seung,
scikit-learn): here ``W`` holds the coefficients of the samples, not the
loading matrix (d × k) that ``W`` names in the rest of pcalib. The factors
minimise a β-divergence ``D_β(X | W H) = Σ_ij d_β(x_ij | (WH)_ij)``
(eq. ``eq-nmf-beta``, :mod:`~pcalib.nmf.divergences`), of which

* β = 2 is the Frobenius loss ``½ ‖X - W H‖²_F`` (eq. ``eq-nmf-frobenius``),
* β = 1 the generalised Kullback–Leibler divergence
  ``Σ_ij x_ij log(x_ij / (WH)_ij) - x_ij + (WH)_ij`` (eq. ``eq-nmf-kl``),
* β = 0 the Itakura–Saito divergence ``Σ_ij x_ij / (WH)_ij - log(x_ij / (WH)_ij) - 1``,

plus the penalties ``λ₁ᵂ‖W‖₁ + λ₁ᴴ‖H‖₁ + ½ λ₂ᵂ‖W‖²_F + ½ λ₂ᴴ‖H‖²_F``
(eq. ``eq-nmf-penalised``, :mod:`~pcalib.nmf.penalties`), whose weights
come from scikit-learn's ``alpha_W``, ``alpha_H`` and ``l1_ratio`` with
scikit-learn's scaling (:func:`scaled_penalties`).

Solvers, named as in scikit-learn (their half-steps in
:mod:`~pcalib.nmf.updates`, the alternation in
:mod:`~pcalib.nmf.iterations`): ``"cd"``, coordinate descent on the rows
of each factor, which is HALS (hierarchical alternating least squares: exact
minimisation over one row at a time, Frobenius only), usually the fastest;
``"mu"``, the multiplicative updates of Lee and Seung (every β; each
update never increases the objective; for a general β with the exponent
γ(β) of Févotte and Idier, :func:`mm_exponent`); and pcalib's ``"pg"``, projected
gradient (Frobenius only), the simplest non-negative method, and ``"anls"``,
alternating non-negative least squares (Frobenius only): exact minimisation
over a whole factor by block principal pivoting (:func:`anls_update`,
:mod:`~pcalib.nmf.nnls`). The
problem is not convex, and NP-hard: the solvers decrease the objective, and
at best reach a stationary point (for ANLS every limit point is one, for
HALS while no component becomes zero; :func:`kkt_residual` measures the
distance), not necessarily a local minimum; for the multiplicative updates
even that is not guaranteed. For separable data, :func:`successive_projection`
finds the parts among the samples in one pass.
``components_`` is ``H``, ``transform`` returns ``W``, solved for exactly
given ``H`` (:func:`solve_W`, :mod:`~pcalib.nmf.newton`). The starts are in
:mod:`~pcalib.nmf.initialization`, the estimator :class:`NMF` in
:mod:`~pcalib.nmf.estimator`.

Non-uniqueness: ``W H = (W D)(D⁻¹ H)`` for any positive diagonal ``D`` and
any permutation. Without penalties pcalib normalises the rows of ``H`` to
unit Euclidean norm (moving the scale into ``W``) and orders the components
by decreasing ``‖w_j‖ ‖h_j‖`` (:mod:`~pcalib.nmf.canonical`); with penalties
the scale is part of the objective and is left as fitted.

Units: the factors are in units of ``√X`` and the objective in units of
``Xᵝ`` (``d_β(c x | c y) = cᵝ d_β(x | y)``). ``NMF`` fits ``X / 4ᵉ``, whose
largest entry is near 1 (:func:`~pcalib.nmf.units.unit_exponent`), and
multiplies the factors back by ``2ᵉ``: powers of two, so the rescaling is
exact, nothing overflows, and the constants of the algorithm (``TINY``, the
tolerance, the start) are relative to the data. ``fit(c X)`` is therefore
``fit(X)`` rescaled.

``X`` may be a ``scipy.sparse`` matrix: the Frobenius solvers use only the
products ``X Hᵀ`` and ``Wᵀ X`` and never densify it. ``float32`` data give
``float32`` results, computed in ``float64``.

Each name is defined in the module of its idea; the package re-exports the
building blocks that the book imports from ``pcalib.nmf``.
"""

from .canonical import normalise as normalise
from .divergences import beta_divergence as beta_divergence
from .divergences import beta_value as beta_value
from .estimator import NMF
from .initialization import nndsvd as nndsvd
from .initialization import random_start as random_start
from .iterations import beta_iterations as beta_iterations
from .iterations import extrapolate_factor as extrapolate_factor
from .iterations import frobenius_iterations as frobenius_iterations
from .newton import projected_newton_rows as projected_newton_rows
from .newton import solve_W as solve_W
from .nnls import block_principal_pivoting as block_principal_pivoting
from .penalties import NO_PENALTIES as NO_PENALTIES
from .penalties import penalties_in_units as penalties_in_units
from .penalties import scaled_penalties as scaled_penalties
from .separable import successive_projection
from .stationarity import kkt_residual as kkt_residual
from .updates import anls_update as anls_update
from .updates import hals_update as hals_update
from .updates import mm_exponent as mm_exponent
from .updates import multiplicative_update_beta as multiplicative_update_beta
from .updates import multiplicative_update_frobenius as multiplicative_update_frobenius
from .updates import multiplicative_update_kl as multiplicative_update_kl
from .updates import projected_gradient_update as projected_gradient_update

__all__ = ["NMF", "successive_projection"]
