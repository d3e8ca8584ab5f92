"""pcalib's vocabulary rules (CONTRIBUTING.md, "One vocabulary"), checked on every estimator.

The estimators and public functions are enumerated from the package, so a new
estimator is held to the same rules without being added here by hand.
"""

import importlib
import inspect
import pkgutil
import warnings

import numpy as np
import pytest
import sklearn.decomposition
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning

import pcalib

ESTIMATORS = sorted(
    (
        obj
        for obj in vars(pcalib).values()
        if inspect.isclass(obj) and issubclass(obj, BaseEstimator)
    ),
    key=lambda cls: cls.__name__,
)

# The public modules, those of subpackages (pcalib.nmf.*) included.
PUBLIC_MODULES = [
    importlib.import_module(info.name)
    for info in pkgutil.walk_packages(pcalib.__path__, prefix="pcalib.")
    if not any(part.startswith("_") for part in info.name.split(".")[1:])
]

# Functions defined in pcalib's public modules and not private.
PUBLIC_FUNCTIONS = sorted(
    {
        obj
        for module in PUBLIC_MODULES
        for name, obj in vars(module).items()
        if inspect.isfunction(obj)
        and not name.startswith("_")
        and obj.__module__.startswith("pcalib")
    },
    key=lambda f: f"{f.__module__}.{f.__name__}",
)

# Names that pcalib does not use because the vocabulary has another name for
# the same idea (the vocabulary's name in the comment).
SYNONYMS = {
    "method": "solver",
    "svd": "svd_solver",
    "lam": "l1_penalty",
    "l1": "l1_penalty",
    "l2": "l2_penalty",
    "loss": "beta_loss (NMF)",
    "n_power_iterations": "iterated_power",
    "seed": "random_state",
    "rng": "random_state",
    "sigma2": "noise_variance_",
}

# The scikit-learn estimator of the same name, and the parameters pcalib adds
# to it. Every other pcalib parameter must be one of scikit-learn's.
SKLEARN_COUNTERPARTS = {
    "PCA": (sklearn.decomposition.PCA, {"standardize", "max_iter"}),
    "KernelPCA": (
        sklearn.decomposition.KernelPCA,
        {"bandwidth", "approximation", "n_landmarks", "n_random_features"},
    ),
    "NMF": (sklearn.decomposition.NMF, {"extrapolate"}),
}


def parameters(callable_):
    return inspect.signature(callable_).parameters


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda cls: cls.__name__)
def test_no_synonym_in_estimator_parameters(estimator):
    used = set(parameters(estimator)) & set(SYNONYMS)
    assert not used, {name: SYNONYMS[name] for name in used}


@pytest.mark.parametrize("function", PUBLIC_FUNCTIONS, ids=lambda f: f"{f.__module__}.{f.__name__}")
def test_no_synonym_in_function_parameters(function):
    used = set(parameters(function)) & set(SYNONYMS)
    assert not used, {name: SYNONYMS[name] for name in used}


def test_public_functions_were_found():
    names = {f.__name__ for f in PUBLIC_FUNCTIONS}
    assert {"elastic_net", "pca_als", "l1_low_rank", "ridge_factorization", "pca_dask"} <= names


@pytest.mark.parametrize("name", sorted(SKLEARN_COUNTERPARTS))
def test_sklearn_names_where_sklearn_has_the_estimator(name):
    reference, extras = SKLEARN_COUNTERPARTS[name]
    ours = set(parameters(getattr(pcalib, name)))
    unknown = ours - set(parameters(reference)) - extras
    assert not unknown, f"{name} parameters that scikit-learn names otherwise: {unknown}"
    assert extras <= ours, f"{name} lost documented extras {extras - ours}"


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda cls: cls.__name__)
def test_n_components_defaults_to_none(estimator):
    params = parameters(estimator)
    if "n_components" in params:
        assert params["n_components"].default is None


# Every iterative configuration of every estimator, on data it accepts.
def _data(rng):
    return np.abs(rng.standard_normal((40, 6))) + 0.1


ITERATIVE = [
    (pcalib.PCA, {"n_components": 2, "svd_solver": "subspace"}),
    (pcalib.PCA, {"n_components": 2, "svd_solver": "full"}),
    (pcalib.PPCA, {"n_components": 2, "solver": "em"}),
    (pcalib.PPCA, {"n_components": 2, "solver": "closed_form"}),
    (pcalib.FactorAnalysis, {"n_components": 2}),
    (pcalib.ElasticNetSPCA, {"n_components": 2, "l1_penalty": 0.1}),
    (pcalib.NMF, {"n_components": 2, "solver": "cd"}),
    (pcalib.NMF, {"n_components": 2, "solver": "mu"}),
    (pcalib.NMF, {"n_components": 2, "solver": "pg"}),
    (pcalib.NMF, {"n_components": 2, "solver": "anls"}),
    (pcalib.NMF, {"n_components": 2, "solver": "mu", "beta_loss": "kullback-leibler"}),
    (pcalib.RobustPCA, {}),
]
ITERATIVE_IDS = [f"{cls.__name__}-{'-'.join(map(str, kw.values()))}" for cls, kw in ITERATIVE]


# Estimators whose max_iter and tol are scikit-learn's ARPACK settings only,
# passed to scipy.sparse.linalg.eigsh, which reports no iteration count: not
# iterative in the sense of rule 4 (scikit-learn's KernelPCA has no n_iter_).
ARPACK_SETTINGS_ONLY = {pcalib.KernelPCA}


def test_every_iterative_estimator_is_listed():
    iterative = {cls for cls in ESTIMATORS if "max_iter" in parameters(cls)}
    assert iterative - ARPACK_SETTINGS_ONLY == {cls for cls, _ in ITERATIVE}


def _fit(cls, kwargs, **extra):
    X = _data(np.random.default_rng(0))
    random = {"random_state": 0} if "random_state" in parameters(cls) else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return cls(**kwargs, **random, **extra).fit(X)


def _histories(estimator):
    return [name for name in vars(estimator) if name.endswith("_history_")]


@pytest.mark.parametrize(("cls", "kwargs"), ITERATIVE, ids=ITERATIVE_IDS)
def test_iteration_attributes_and_history_length(cls, kwargs):
    fitted = _fit(cls, kwargs)
    assert isinstance(fitted.n_iter_, int) and fitted.n_iter_ >= 0
    assert isinstance(fitted.converged_, bool)
    histories = _histories(fitted)
    assert len(histories) == 1, histories
    history = getattr(fitted, histories[0])
    assert np.ndim(history) == 1
    assert len(history) == fitted.n_iter_ + 1
    assert np.all(np.isfinite(history))


@pytest.mark.parametrize(
    ("cls", "kwargs"),
    [
        (cls, kw)
        for cls, kw in ITERATIVE
        if kw.get("svd_solver") != "full" and kw.get("solver") != "closed_form"
    ],
)
def test_tol_zero_runs_max_iter(cls, kwargs):
    X = _data(np.random.default_rng(1))
    random = {"random_state": 0} if "random_state" in parameters(cls) else {}
    estimator = cls(**kwargs, **random, tol=0, max_iter=4)
    with pytest.warns(ConvergenceWarning, match=r"stopped after max_iter=4 iterations"):
        estimator.fit(X)
    assert estimator.n_iter_ == 4
    assert estimator.converged_ is False


def _auto_parameters(cls):
    return [
        name
        for name, p in parameters(cls).items()
        if isinstance(p.default, str) and p.default == "auto"
    ]


RESOLVED_DEFAULTS = {
    # parameters whose default None is resolved from the data
    "KernelPCA": ["gamma"],
    "NMF": ["init"],
    "RobustPCA": ["l1_penalty"],
}


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda cls: cls.__name__)
def test_auto_choices_are_recorded(cls):
    kwargs = {"n_components": 2} if "n_components" in parameters(cls) else {}
    if cls is pcalib.KernelPCA:
        kwargs["kernel"] = "rbf"
    fitted = _fit(cls, kwargs)
    for name in _auto_parameters(cls) + RESOLVED_DEFAULTS.get(cls.__name__, []):
        assert hasattr(fitted, name + "_"), f"{cls.__name__} does not record {name}_"
        chosen = getattr(fitted, name + "_")
        assert chosen is not None and not (isinstance(chosen, str) and chosen == "auto")


def test_auto_parameters_are_found():
    found = {cls.__name__: _auto_parameters(cls) for cls in ESTIMATORS}
    assert "svd_solver" in found["PCA"] and "eigen_solver" in found["KernelPCA"]
    assert "solver" in found["PPCA"] and "svd_solver" in found["RobustPCA"]


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda cls: cls.__name__)
def test_every_estimator_records_its_training_shape(cls):
    kwargs = {"n_components": 2} if "n_components" in parameters(cls) else {}
    fitted = _fit(cls, kwargs)
    assert fitted.n_samples_ == 40
    assert fitted.n_features_in_ == 6


def test_factorisations_return_the_one_result_type():
    X = _data(np.random.default_rng(2))
    X_binary = (X > np.median(X)).astype(float)
    from pcalib.matrix_factorization import (
        logistic_factorization,
        ridge_factorization,
        sparse_factorization,
    )

    results = [
        pcalib.pca_als(X, 2, random_state=0),
        pcalib.pca_gradient_descent(X, 2, random_state=0),
        ridge_factorization(X, 2, l2_penalty=0.1, random_state=0),
        sparse_factorization(X, 2, l1_penalty=0.1, random_state=0),
        logistic_factorization(X_binary, 2, random_state=0),
        pcalib.l1_low_rank(X, 2),
    ]
    for result in results:
        assert isinstance(result, pcalib.FactorizationResult)
        assert result.Z.shape == (40, 2)
        assert result.W.shape == (6, 2)
        assert len(result.objective_history) == result.n_iter + 1
        assert result.reconstruction().shape == X.shape


PUBLIC_METHODS = [
    (cls, name)
    for cls in ESTIMATORS
    for name, member in vars(cls).items()
    if inspect.isfunction(member) and not name.startswith("_")
]


@pytest.mark.parametrize(
    ("cls", "name"), PUBLIC_METHODS, ids=[f"{c.__name__}.{n}" for c, n in PUBLIC_METHODS]
)
def test_public_methods_have_full_numpydoc_docstrings(cls, name):
    doc = inspect.getdoc(getattr(cls, name)) or ""
    takes_arguments = len(parameters(getattr(cls, name))) > 1
    if takes_arguments:
        assert "Parameters\n----------" in doc, f"{cls.__name__}.{name} has no Parameters section"
    assert "Returns\n-------" in doc, f"{cls.__name__}.{name} has no Returns section"


def test_every_estimator_defines_fit():
    assert {cls for cls, name in PUBLIC_METHODS if name == "fit"} == set(ESTIMATORS)
