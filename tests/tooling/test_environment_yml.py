"""environment.yml (conda, Binder) and pyproject.toml (pip) must not drift apart.

What environment.yml must contain, so that Binder or ``conda env create`` gives the
course everything ``pip install -e '.[lab]'`` gives:

- the ``conda-forge`` channel;
- ``python`` with exactly pyproject's ``requires-python`` bound;
- every runtime dependency (``[project] dependencies``) and every ``lab`` extra dependency,
  with the same version bound, either as a conda dependency or in the ``pip:`` list
  (for packages conda-forge lacks, e.g. koreanize-matplotlib);
- the package itself, installed by pip: ``-e .`` or ``.`` in the ``pip:`` list;
- ``pip`` itself, as the tool that installs that list, with or without a bound.

What it may contain: the ``dev`` extra (test tools) is not needed to run the course, so it
may be left out; a dev package that is listed must have the dev extra's bound.
Nothing else: a package pyproject does not declare is an error (add it to pyproject or
remove it). Names compare normalised (case, and ``-``, ``_``, ``.`` alike); bounds
compare with spaces removed and comma-separated clauses sorted. Environment markers
(``; sys_platform == ...``) cannot be written in conda and are ignored.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest
import yaml

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: tomllib is new in 3.11
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parents[2]

# conda-forge name -> PyPI name, where they differ
CONDA_TO_PYPI = {"pytorch": "torch"}

SELF_INSTALL = ("-e .", ".")

_REQUIREMENT = re.compile(
    r"^\s*(?:[\w.-]+::)?"  # a conda channel prefix, conda-forge::numpy
    r"(?P<name>[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)"
    r"\s*(?:\[[^\]]*\])?"  # pip extras, name[extra]
    r"\s*(?P<spec>.*?)\s*$"
)


def normalise_name(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def parse_requirement(text: str) -> tuple[str, str]:
    """``"NumPy >= 1.24, <3"`` → ``("numpy", "<3,>=1.24")``."""
    text = text.split(";", 1)[0]
    match = _REQUIREMENT.match(text)
    if not match:
        raise ValueError(f"cannot read the requirement {text!r}")
    clauses = [c.replace(" ", "") for c in match["spec"].split(",") if c.strip()]
    return normalise_name(match["name"]), ",".join(sorted(clauses))


def _bound(spec: str) -> str:
    return repr(spec) if spec else "no bound"


def environment_problems(pyproject: dict, environment: dict) -> list[str]:
    """Every way ``environment`` (parsed environment.yml) disagrees with ``pyproject``."""
    problems: list[str] = []
    project = pyproject["project"]
    extras = project.get("optional-dependencies", {})
    wanted: dict[str, tuple[str, str]] = {}  # name -> (bound, where in pyproject)
    for where, requirements in (("dependencies", project.get("dependencies", [])),
                                ("the lab extra", extras.get("lab", []))):
        for req in requirements:
            name, spec = parse_requirement(req)
            wanted[name] = (spec, where)
    dev = dict(parse_requirement(r) for r in extras.get("dev", []))

    channels = environment.get("channels") or []
    if "conda-forge" not in channels:
        problems.append(f"environment.yml: channels must include conda-forge, got {channels}")

    have: dict[str, tuple[str, str]] = {}  # name -> (bound, "conda" or "pip")
    python_spec = None
    self_installed = False

    def add(req: str, where: str) -> None:
        name, spec = parse_requirement(req)
        if where == "conda":
            name = CONDA_TO_PYPI.get(name, name)
        if name in have:
            problems.append(f"environment.yml lists {name} twice ({have[name][1]} and {where})")
        have[name] = (spec, where)

    for dep in environment.get("dependencies") or []:
        if isinstance(dep, dict):
            if set(dep) != {"pip"}:
                problems.append(f"environment.yml: unexpected dependency entry {dep!r}")
                continue
            for item in dep["pip"] or []:
                item = " ".join(str(item).split())
                if item in SELF_INSTALL:
                    self_installed = True
                elif item.startswith("-"):
                    problems.append(f"environment.yml: unexpected pip option {item!r}")
                else:
                    add(item, "pip")
            continue
        name, spec = parse_requirement(str(dep))
        if name == "python":
            python_spec = spec
        elif name != "pip":  # pip is the tool that installs the pip list
            add(str(dep), "conda")

    _, requires_python = parse_requirement("python" + project.get("requires-python", ""))
    if python_spec is None:
        problems.append(f"environment.yml must list python{requires_python} "
                        "(pyproject's requires-python)")
    elif python_spec != requires_python:
        problems.append(f"python: pyproject.toml requires-python is {_bound(requires_python)}, "
                        f"environment.yml says {_bound(python_spec)}")
    if not self_installed:
        problems.append("environment.yml's pip list must install the package itself: "
                        "'-e .' or '.'")

    for name, (spec, where) in wanted.items():
        if name not in have:
            problems.append(f"{name}{spec} (pyproject.toml {where}) is missing from "
                            "environment.yml")
        elif have[name][0] != spec:
            problems.append(f"{name}: pyproject.toml {where} says {_bound(spec)}, "
                            f"environment.yml ({have[name][1]}) says {_bound(have[name][0])}")
    for name, (spec, where) in have.items():
        if name in wanted:
            continue
        if name in dev:
            if spec != dev[name]:
                problems.append(f"{name}: pyproject.toml dev extra says {_bound(dev[name])}, "
                                f"environment.yml ({where}) says {_bound(spec)}")
            continue
        problems.append(f"{name} is in environment.yml ({where}) but not in pyproject.toml's "
                        "dependencies or lab extra: add it there or remove it")
    return problems


# --- the real files -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def environment() -> dict:
    return yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))


def test_environment_yml_matches_pyproject(pyproject, environment):
    problems = environment_problems(pyproject, environment)
    assert not problems, "environment.yml and pyproject.toml disagree:\n" + "\n".join(problems)


def test_the_real_files_have_something_to_compare(pyproject, environment):
    """Guards the check itself: an empty or misread file would agree with anything."""
    assert len(pyproject["project"]["dependencies"]) >= 1
    assert len(pyproject["project"]["optional-dependencies"]["lab"]) >= 1
    assert environment["dependencies"]


# --- the check can fail ---------------------------------------------------------------------


def _conda(env: dict) -> list:
    return env["dependencies"]


def _pip(env: dict) -> list:
    return next(d for d in env["dependencies"] if isinstance(d, dict))["pip"]


def _replace(items: list, old: str, new: str | None) -> None:
    i = items.index(old)
    if new is None:
        del items[i]
    else:
        items[i] = new


DRIFTS = {
    "runtime dependency missing": (
        lambda p, e: _replace(_conda(e), "numpy>=1.24", None),
        r"numpy>=1\.24 \(pyproject\.toml dependencies\) is missing"),
    "lab dependency missing": (
        lambda p, e: _replace(_conda(e), "jupyterlab>=4.0", None),
        r"jupyterlab>=4\.0 \(pyproject\.toml the lab extra\) is missing"),
    "pip dependency missing": (
        lambda p, e: _replace(_pip(e), "koreanize-matplotlib>=0.1.1", None),
        r"koreanize-matplotlib>=0\.1\.1 .* is missing"),
    "bound differs in environment.yml": (
        lambda p, e: _replace(_conda(e), "matplotlib>=3.7", "matplotlib>=3.8"),
        r"matplotlib: pyproject\.toml dependencies says '>=3\.7', environment\.yml \(conda\) "
        r"says '>=3\.8'"),
    "bound missing in environment.yml": (
        lambda p, e: _replace(_conda(e), "ipywidgets>=8.0", "ipywidgets"),
        r"ipywidgets: .* says '>=8\.0', environment\.yml \(conda\) says no bound"),
    "bound differs in pyproject": (
        lambda p, e: _replace(p["project"]["dependencies"], "numpy>=1.24", "numpy>=2.0"),
        r"numpy: pyproject\.toml dependencies says '>=2\.0'"),
    "new runtime dependency": (
        lambda p, e: p["project"]["dependencies"].append("scipy>=1.11"),
        r"scipy>=1\.11 \(pyproject\.toml dependencies\) is missing"),
    "new lab dependency": (
        lambda p, e: p["project"]["optional-dependencies"]["lab"].append("jupytext>=1.16"),
        r"jupytext>=1\.16 \(pyproject\.toml the lab extra\) is missing"),
    "extra conda package": (
        lambda p, e: _conda(e).insert(1, "pandas>=2.0"),
        r"pandas is in environment\.yml \(conda\) but not in pyproject"),
    "extra pip package": (
        lambda p, e: _pip(e).insert(0, "requests"),
        r"requests is in environment\.yml \(pip\) but not in pyproject"),
    "dev package with another bound": (
        lambda p, e: _conda(e).append("pytest>=6"),
        r"pytest: pyproject\.toml dev extra says '>=7\.4', environment\.yml \(conda\) says "
        r"'>=6'"),
    "listed twice": (
        lambda p, e: _pip(e).insert(0, "numpy>=1.24"),
        r"environment\.yml lists numpy twice \(conda and pip\)"),
    "no conda-forge": (
        lambda p, e: e.__setitem__("channels", ["defaults"]),
        r"channels must include conda-forge, got \['defaults'\]"),
    "python bound differs": (
        lambda p, e: _replace(_conda(e), "python>=3.10", "python>=3.9"),
        r"python: pyproject\.toml requires-python is '>=3\.10', environment\.yml says '>=3\.9'"),
    "python missing": (
        lambda p, e: _replace(_conda(e), "python>=3.10", None),
        r"environment\.yml must list python>=3\.10"),
    "package itself not installed": (
        lambda p, e: _replace(_pip(e), "-e .", None),
        r"must install the package itself"),
    "unknown pip option": (
        lambda p, e: _pip(e).append("--pre"),
        r"unexpected pip option '--pre'"),
}

# A fixed copy of the files as they were when this test was written, so the drift tests
# test the comparison, whatever the real files say later.
PYPROJECT = {
    "project": {
        "requires-python": ">=3.10",
        "dependencies": ["numpy>=1.24", "matplotlib>=3.7", "ipywidgets>=8.0",
                         "koreanize-matplotlib>=0.1.1"],
        "optional-dependencies": {
            "lab": ["jupyterlab>=4.0", "ipykernel>=6.0"],
            "dev": ["pytest>=7.4", "hypothesis>=6.80", "pyyaml>=6.0"],
        },
    }
}
ENVIRONMENT = {
    "name": "qkv-course",
    "channels": ["conda-forge"],
    "dependencies": ["python>=3.10", "numpy>=1.24", "matplotlib>=3.7", "ipywidgets>=8.0",
                     "jupyterlab>=4.0", "ipykernel>=6.0", "pip",
                     {"pip": ["koreanize-matplotlib>=0.1.1", "-e ."]}],
}


def test_the_fixed_copies_agree():
    assert environment_problems(PYPROJECT, ENVIRONMENT) == []


@pytest.mark.parametrize("drift", list(DRIFTS), ids=list(DRIFTS))
def test_the_check_finds_drift(drift):
    edit, expected = DRIFTS[drift]
    p, e = copy.deepcopy(PYPROJECT), copy.deepcopy(ENVIRONMENT)
    edit(p, e)
    problems = environment_problems(p, e)
    assert any(re.search(expected, problem) for problem in problems), problems


@pytest.mark.parametrize("edit", [
    # names normalised, spaces and clause order ignored, a channel prefix read
    lambda p, e: _replace(_pip(e), "koreanize-matplotlib>=0.1.1", "Koreanize_Matplotlib >= 0.1.1"),
    lambda p, e: _replace(_conda(e), "numpy>=1.24", "conda-forge::numpy >=1.24"),
    lambda p, e: (_replace(p["project"]["dependencies"], "numpy>=1.24", "numpy>=1.24,<3"),
                  _replace(_conda(e), "numpy>=1.24", "numpy <3, >=1.24")),
    # the package installed without -e; pip with a bound
    lambda p, e: _replace(_pip(e), "-e .", "."),
    lambda p, e: _replace(_conda(e), "pip", "pip>=23"),
    # a dev package may be listed with the dev extra's bound, or moved to pip
    lambda p, e: _conda(e).append("pytest>=7.4"),
    lambda p, e: (_replace(_conda(e), "ipykernel>=6.0", None), _pip(e).append("ipykernel>=6.0")),
    # markers are ignored
    lambda p, e: _replace(p["project"]["dependencies"], "numpy>=1.24",
                          "numpy>=1.24; python_version >= '3.10'"),
], ids=["name case and _", "channel prefix", "clause order", "no -e", "pip bound",
        "dev package", "conda to pip", "marker"])
def test_the_check_accepts_equivalent_spellings(edit):
    p, e = copy.deepcopy(PYPROJECT), copy.deepcopy(ENVIRONMENT)
    edit(p, e)
    assert environment_problems(p, e) == []


@pytest.mark.parametrize("text, expected", [
    ("numpy>=1.24", ("numpy", ">=1.24")),
    ("NumPy >= 1.24, <3", ("numpy", "<3,>=1.24")),
    ("koreanize_matplotlib", ("koreanize-matplotlib", "")),
    ("zope.interface==6.0", ("zope-interface", "==6.0")),
    ("conda-forge::python >=3.10", ("python", ">=3.10")),
    ("qkv_helpers[lab]>=0.1", ("qkv-helpers", ">=0.1")),
    ("numpy>=1.24; sys_platform == 'win32'", ("numpy", ">=1.24")),
])
def test_parse_requirement(text, expected):
    assert parse_requirement(text) == expected
