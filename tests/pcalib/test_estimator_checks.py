"""scikit-learn's estimator checks on every pcalib estimator.

Each estimator is checked in every configuration that runs different code
(solvers, approximations, missing data, losses), except the NMF
configurations with β ≤ 0, which refuse the zeros the checks put in their
data (:func:`estimator_checks.checked_configurations`). The checks an
estimator is expected to fail are marked xfail, each with its reason
(:func:`estimator_checks.expected_failed_checks`), strictly: one that starts
to pass fails the test.
"""

import pytest
from estimator_checks import checked_configurations, expected_failed_checks
from sklearn.utils.estimator_checks import parametrize_with_checks


# The checks' small random data leave some sparse components empty at these
# penalties; the warning saying so is the documented behaviour (tested in
# test_sparse_pca.py), not a failure of the check.
@pytest.mark.filterwarnings("ignore:component\\(s\\) .* have no non-zero loading:UserWarning")
@parametrize_with_checks(
    checked_configurations(), expected_failed_checks=expected_failed_checks, xfail_strict=True
)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)
