"""The enumeration in public_api.py covers pcalib's whole public API."""

import inspect
import re

from public_api import (
    CONFIGURATIONS,
    VALID_CALLS,
    entry_point_functions,
    estimator_configurations,
    function_id,
    public_estimators,
    public_modules,
)

import pcalib

# The parameters that choose which code runs, and the values that do.
OPTION_PARAMETERS = (
    "svd_solver",
    "solver",
    "eigen_solver",
    "approximation",
    "kernel",
    "beta_loss",
    "standardize",
    "whiten",
    "allow_missing",
)


def test_every_exported_class_is_an_estimator_or_a_result_or_a_warning():
    for name in pcalib.__all__:
        obj = getattr(pcalib, name)
        if isinstance(obj, type):
            assert (
                obj in public_estimators() or name.endswith("Result") or issubclass(obj, Warning)
            ), name


def test_every_entry_point_has_a_valid_call():
    missing = [function_id(f) for f in entry_point_functions() if function_id(f) not in VALID_CALLS]
    assert not missing, f"add these to public_api.VALID_CALLS: {missing}"
    unknown = set(VALID_CALLS) - {function_id(f) for f in entry_point_functions()}
    assert not unknown, f"not exported by any __all__: {sorted(unknown)}"


def test_every_public_module_declares_its_entry_points():
    for module in public_modules():
        assert hasattr(module, "__all__"), module.__name__
        for name in module.__all__:
            assert hasattr(module, name), f"{module.__name__}.{name}"


def test_every_configuration_is_of_a_public_estimator():
    assert set(CONFIGURATIONS) <= set(public_estimators())
    assert {type(e) for e in estimator_configurations()} == set(public_estimators())


def default_option_values(cls):
    """The default of each option parameter of ``cls``."""
    signature = inspect.signature(cls)
    return {
        name: parameter.default
        for name, parameter in signature.parameters.items()
        if name in OPTION_PARAMETERS
    }


def test_the_defaults_of_every_option_are_configured():
    for cls in public_estimators():
        defaults = default_option_values(cls)
        configured = [e.get_params() for e in estimator_configurations() if type(e) is cls]
        for name, value in defaults.items():
            assert any(params[name] == value for params in configured), (cls.__name__, name)


def allowed_values(cls, name):
    """The values of the string option ``name``, read from the error on a bad one."""
    from public_api import positive_data

    try:
        cls(**{name: "bogus"}).fit(positive_data())
    except ValueError as error:
        return set(re.findall(r"'([^']+)'", str(error))) - {"bogus"}
    raise AssertionError(f"{cls.__name__}({name}='bogus') was accepted")


# Option values that the shared configurations cannot run, each tested in its
# estimator's own tests instead: a precomputed kernel takes a square kernel
# matrix, not the shared tests' rectangular data (tests/pcalib/test_kernel_pca.py).
UNCONFIGURED = {("KernelPCA", "kernel", "precomputed")}


def test_every_value_of_every_string_option_is_configured():
    for cls in public_estimators():
        configured = [e.get_params() for e in estimator_configurations() if type(e) is cls]
        for name, default in default_option_values(cls).items():
            if not isinstance(default, str):
                continue
            values = allowed_values(cls, name)
            assert default in values, (cls.__name__, name, values)
            missing = {
                v
                for v in values
                if not any(p[name] == v for p in configured)
                and (cls.__name__, name, v) not in UNCONFIGURED
            }
            assert not missing, f"{cls.__name__}: configure {name} = {sorted(missing)}"
