"""scikit-learn's estimator checks on every pcalib estimator.

Each estimator is checked in every configuration that runs different code
(solvers, approximations, missing data, losses).

``check_array_api_input`` is left out: pcalib computes with NumPy only (see
:func:`estimator_checks.without_array_api_check`), and so is
``check_transformer_n_iter`` for direct solvers, which report ``n_iter_ = 0``
(see :func:`estimator_checks.without_n_iter_check_of_direct_solvers`), and so
are the NMF configurations with β ≤ 0, which refuse the zeros the checks put
in their data (see
:func:`estimator_checks.without_checks_of_zero_refusing_configurations`).
"""

import pytest
from estimator_checks import (
    without_array_api_check,
    without_checks_of_zero_refusing_configurations,
    without_n_iter_check_of_direct_solvers,
)
from public_api import estimator_configurations
from sklearn.utils.estimator_checks import parametrize_with_checks

# Every configuration that runs different code (solvers, approximations,
# missing data, losses), from public_api.CONFIGURATIONS.
CONFIGURATIONS = estimator_configurations()


# The checks' small random data leave some sparse components empty at these
# penalties; the warning saying so is the documented behaviour (tested in
# test_sparse_pca.py), not a failure of the check.
@pytest.mark.filterwarnings("ignore:component\\(s\\) .* have no non-zero loading:UserWarning")
@without_checks_of_zero_refusing_configurations(
    without_n_iter_check_of_direct_solvers(
        without_array_api_check(parametrize_with_checks(CONFIGURATIONS))
    )
)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)
