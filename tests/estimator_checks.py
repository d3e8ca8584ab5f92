"""Shared helper for running scikit-learn's estimator checks on pcalib."""

import pytest


def without_array_api_check(marker):
    """Drop ``check_array_api_input`` from a ``parametrize_with_checks`` marker.

    scikit-learn skips that check unless the environment variable
    SCIPY_ARRAY_API is set. pcalib computes with NumPy only and does not
    dispatch on the array API, so the check is out of scope; filtering it out
    by name keeps the suite free of skips.
    """
    argnames, argvalues = marker.mark.args
    argvalues = list(argvalues)

    def check_name(value):
        # a plain (estimator, check) tuple, or a pytest.param wrapping one
        check = (value if isinstance(value, tuple) else value.values)[1]
        return getattr(check, "func", check).__name__

    kept = [value for value in argvalues if check_name(value) != "check_array_api_input"]
    assert len(kept) < len(argvalues), "check_array_api_input was not found"
    return pytest.mark.parametrize(argnames, kept, **marker.mark.kwargs)
