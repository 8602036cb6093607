"""
Every public class of the package appears in the API pages of the documentation.

The check is static and fast: it parses the package's Python sources (``ast``, nothing is imported) and
the reStructuredText sources under docs/ (no Sphinx build: CI builds the docs with ``make doc``
separately), and resolves what the autodoc directives document:

* ``.. autoclass:: name`` / ``.. autoexception:: name`` (dotted, or relative to the current
  ``.. module::`` / ``.. currentmodule::``);
* ``.. automodule:: module`` with ``:members:``: the classes autodoc documents there (the classes of its
  ``__all__`` when it has one, followed to the module defining them, else those defined in that module; with
  a docstring of their own, of ``__init__`` or possibly inherited from a base class);
* the entries of ``.. autosummary::``.

A documented name is followed through ``from x import y`` re-exports and the package's lazy export tables
(``{"PPO2": "stable_baselines.ppo2"}``) to the module that defines the class, so a class documented as
``stable_baselines.ddpg.NormalActionNoise`` counts for ``stable_baselines.common.noise``.

Public class: a top-level ``class`` statement of a module of ``stable_baselines`` whose name and module
path have no component starting with an underscore. Example scripts (``*.experiments.*``) are not API.
"""
import ast
import os
import re
from typing import Dict, List, Optional, Set, Tuple

ROOT_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS_DIR = os.path.join(ROOT_DIR, "docs")
PACKAGE = "stable_baselines"

_DIRECTIVE = re.compile(r"^(?P<indent>\s*)\.\.\s+(?P<name>[\w:-]+)::\s*(?P<arg>\S*)\s*$")
_OPTION = re.compile(r"^\s+:(?P<name>[\w-]+):")

ClassKey = Tuple[str, str]  # (defining module, class name)


# ----------------------------------------------------------------------------------------------
# the package, read statically
# ----------------------------------------------------------------------------------------------
class ModuleInfo(object):
    """What one source file defines: top-level classes (with docstring flag), re-exports, ``__all__``."""

    def __init__(self, name: str, path: str, is_package: bool):
        self.name = name
        self.classes: Dict[str, bool] = {}  # class name -> autodoc finds a docstring (own, __init__'s or inherited)
        self.imports: Dict[str, Tuple[str, str]] = {}  # local name -> (module, name) or (module, "") for a module
        self.all_names: Optional[List[str]] = None
        with open(path, encoding="utf-8") as file_handler:
            tree = ast.parse(file_handler.read(), filename=path)
        package = name if is_package else name.rpartition(".")[0]
        for node in self._top_level(tree.body):
            if isinstance(node, ast.ClassDef):
                init_doc = any(isinstance(item, ast.FunctionDef) and item.name == "__init__" and
                               ast.get_docstring(item) is not None for item in node.body)
                # autodoc (inherited docstrings on) documents a class whose base has a docstring: any base
                # other than a bare ``object`` may, so only a docstring-less class of ``object`` is skipped
                bases = [ast.unparse(base) for base in node.bases]
                self.classes[node.name] = (ast.get_docstring(node) is not None or init_doc or
                                           any(base != "object" for base in bases))
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")
                    base = ".".join(parts[:len(parts) - node.level + 1] + ([base] if base else []))
                for alias in node.names:
                    self.imports[alias.asname or alias.name] = (base, alias.name)
            elif isinstance(node, ast.Assign):
                targets = [target.id for target in node.targets if isinstance(target, ast.Name)]
                if "__all__" in targets and isinstance(node.value, (ast.List, ast.Tuple)):
                    self.all_names = [elt.value for elt in node.value.elts if isinstance(elt, ast.Constant)]
                elif isinstance(node.value, ast.Dict):  # lazy export table {"Name": "package.module"}
                    for key, value in zip(node.value.keys, node.value.values):
                        if (isinstance(key, ast.Constant) and isinstance(key.value, str) and
                                isinstance(value, ast.Constant) and isinstance(value.value, str) and
                                value.value.startswith(PACKAGE + ".")):
                            self.imports.setdefault(key.value, (value.value, key.value))

    @classmethod
    def _top_level(cls, body):
        for node in body:
            yield node
            if isinstance(node, ast.If):
                yield from cls._top_level(node.body)
                yield from cls._top_level(node.orelse)
            elif isinstance(node, ast.Try):
                for block in (node.body, node.orelse, node.finalbody):
                    yield from cls._top_level(block)
                for handler in node.handlers:
                    yield from cls._top_level(handler.body)


def package_modules() -> Dict[str, ModuleInfo]:
    modules = {}
    package_dir = os.path.join(ROOT_DIR, PACKAGE)
    for root, dirs, files in os.walk(package_dir):
        dirs[:] = sorted(name for name in dirs if os.path.isfile(os.path.join(root, name, "__init__.py")))
        for file_name in sorted(files):
            if not file_name.endswith(".py"):
                continue
            rel = os.path.relpath(os.path.join(root, file_name), ROOT_DIR)[:-3].split(os.sep)
            is_package = rel[-1] == "__init__"
            name = ".".join(rel[:-1] if is_package else rel)
            modules[name] = ModuleInfo(name, os.path.join(root, file_name), is_package)
    return modules


def public_classes(modules: Dict[str, ModuleInfo]) -> Set[ClassKey]:
    found = set()
    for name, info in modules.items():
        parts = name.split(".")
        if any(part.startswith("_") for part in parts) or "experiments" in parts:
            continue
        found.update((name, cls) for cls in info.classes if not cls.startswith("_"))
    return found


def resolve(modules: Dict[str, ModuleInfo], dotted: str, depth: int = 0) -> Optional[ClassKey]:
    """The (module, class) a dotted name refers to, following re-exports; None if it is not a class."""
    if depth > 10:
        return None
    parts = dotted.split(".")
    for split in range(len(parts) - 1, 0, -1):
        module_name, rest = ".".join(parts[:split]), parts[split:]
        if module_name not in modules:
            continue
        info, head = modules[module_name], rest[0]
        if head in info.classes:
            return (module_name, head) if len(rest) == 1 else None  # nested attributes are not classes we track
        if head in info.imports:
            source_module, source_name = info.imports[head]
            target = ".".join([source_module, source_name] + rest[1:]) if source_name else \
                ".".join([source_module] + rest[1:])
            return resolve(modules, target, depth + 1)
        submodule = module_name + "." + head
        if submodule in modules and len(rest) > 1:
            return resolve(modules, ".".join([submodule] + rest[1:]), depth + 1)
        if len(rest) == 1:  # a package exporting a submodule's class lazily (module-level __getattr__)
            children = [name for name, child in modules.items()
                        if name.rpartition(".")[0] == module_name and head in child.classes]
            if len(children) == 1:
                return children[0], head
        return None
    return None


def automodule_classes(modules: Dict[str, ModuleInfo], module_name: str) -> List[ClassKey]:
    """The classes ``.. automodule:: module_name`` with ``:members:`` documents."""
    info = modules.get(module_name)
    if info is None:
        return []
    if info.all_names is None:
        return [(module_name, cls) for cls, has_doc in info.classes.items() if has_doc and not cls.startswith("_")]
    # autodoc skips its __module__ check for the names of __all__: a re-exported class counts where it is defined
    documented = []
    for name in info.all_names:
        key = resolve(modules, module_name + "." + name)
        if key is not None and modules[key[0]].classes.get(key[1]):
            documented.append(key)
    return documented


# ----------------------------------------------------------------------------------------------
# the documentation, read statically
# ----------------------------------------------------------------------------------------------
def rst_files() -> List[str]:
    paths = []
    for root, dirs, files in os.walk(DOCS_DIR):
        dirs[:] = [name for name in dirs if not name.startswith(("_", "."))]
        paths.extend(os.path.join(root, name) for name in files if name.endswith(".rst"))
    return sorted(paths)


def documented_classes(modules: Dict[str, ModuleInfo]) -> Dict[ClassKey, str]:
    """(module, class) -> 'page: directive' for every class an autodoc directive of docs/ documents."""
    documented: Dict[ClassKey, str] = {}
    for path in rst_files():
        current_module: Optional[str] = None
        with open(path, encoding="utf-8") as file_handler:
            lines = file_handler.read().splitlines()
        index = 0
        while index < len(lines):
            match = _DIRECTIVE.match(lines[index])
            index += 1
            if match is None:
                continue
            directive, argument, indent = match.group("name"), match.group("arg"), len(match.group("indent"))
            where = "{}: {}".format(os.path.relpath(path, DOCS_DIR), lines[index - 1].strip())
            body = []  # options and content: the following blank or deeper-indented lines
            while index < len(lines) and (not lines[index].strip() or
                                          len(lines[index]) - len(lines[index].lstrip()) > indent):
                body.append(lines[index])
                index += 1
            options = {opt.group("name") for opt in map(_OPTION.match, body) if opt}

            def add(name: str) -> None:
                candidates = [name] + (["{}.{}".format(current_module, name)] if current_module else [])
                for candidate in candidates:
                    key = resolve(modules, candidate)
                    if key is not None:
                        documented.setdefault(key, where)
                        return

            if directive in ("module", "py:module", "currentmodule", "py:currentmodule"):
                current_module = argument or None
            elif directive in ("autoclass", "autoexception"):
                add(argument)
            elif directive == "automodule" and "members" in options:
                for key in automodule_classes(modules, argument):
                    documented.setdefault(key, where)
            elif directive == "autosummary":
                for entry in body:
                    entry = entry.strip()
                    if entry and not entry.startswith(":"):
                        add(entry)
    return documented


# ----------------------------------------------------------------------------------------------
# tests
# ----------------------------------------------------------------------------------------------
def test_every_public_class_is_documented():
    modules = package_modules()
    classes = public_classes(modules)
    assert len(classes) > 100, "the walk did not find the package"
    documented = documented_classes(modules)
    missing = sorted("{}.{}".format(*key) for key in classes - set(documented))
    assert not missing, ("public classes missing from the API pages (add an autoclass, or an automodule with "
                         ":members: and a class docstring, under docs/):\n  " + "\n  ".join(missing))


def test_every_algorithm_page_has_the_manual_sections():
    for module_dir, algo in [("a2c", "A2C"), ("acer", "ACER"), ("acktr", "ACKTR"), ("ddpg", "DDPG"), ("dqn", "DQN"),
                             ("gail", "GAIL"), ("her", "HER"), ("ppo1", "PPO1"), ("ppo2", "PPO2"), ("sac", "SAC"),
                             ("td3", "TD3"), ("trpo", "TRPO")]:
        path = os.path.join(DOCS_DIR, "modules", module_dir + ".rst")
        with open(path, encoding="utf-8") as file_handler:
            text = file_handler.read()
        assert "Can I use?" in text, path
        assert re.search(r"^Example", text, re.M), path
        assert re.search(r"^\.\. autoclass:: ([\w.]+\.)?{}\s*$".format(algo), text, re.M), path


def test_static_resolution():
    modules = package_modules()
    # a re-export resolves to the defining module; a lazy export table is followed
    assert resolve(modules, "stable_baselines.ddpg.NormalActionNoise") == ("stable_baselines.common.noise",
                                                                           "NormalActionNoise")
    assert resolve(modules, "stable_baselines.PPO2") == ("stable_baselines.ppo2.ppo2", "PPO2")
    assert resolve(modules, "stable_baselines.gail.GAIL") == ("stable_baselines.gail.model", "GAIL")
    assert resolve(modules, "stable_baselines.common.noise.NoSuchThing") is None
    assert ("stable_baselines.common.noise", "NormalActionNoise") in \
        automodule_classes(modules, "stable_baselines.common.noise")
    assert ("stable_baselines.ppo2.ppo2", "PPO2") in public_classes(modules)
    # a package's __all__ documents the classes it re-exports from its submodules
    assert sorted(automodule_classes(modules, "stable_baselines.common.safe_loading.bytecode")) == [
        ("stable_baselines.common.safe_loading.bytecode.function", "ArithmeticFunction"),
        ("stable_baselines.common.safe_loading.bytecode.values", "UnsupportedFunction")]
