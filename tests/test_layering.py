"""The import structure of the package: no import cycle (function-local imports count), common/ imports no algorithm,
and what that means for files holding GAIL's ExpertDataset."""
import ast
import json
import os
import subprocess
import sys
import textwrap
from typing import Dict, List, Set, Tuple

import cloudpickle
import numpy as np

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = os.path.join(REPO_ROOT, "stable_baselines")
ALGORITHMS = ("a2c", "acer", "acktr", "ddpg", "deepq", "gail", "her", "ppo1", "ppo2", "sac", "td3", "trpo_mpi")


def _modules() -> Dict[str, str]:
    """:return: (dict) dotted module name -> file, for every module of the package"""
    found = {}
    for folder, _, files in os.walk(PACKAGE):
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                parts = os.path.relpath(path, REPO_ROOT)[:-3].split(os.sep)
                if parts[-1] == "__init__":
                    parts = parts[:-1]
                found[".".join(parts)] = path
    return found


def _is_type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def _imports(modules: Dict[str, str]) -> List[Tuple[str, str, int]]:
    """:return: ([(str, str, int)]) (importer, imported module of the package, line) for every import statement run at
        import time or inside a function (not the ones only type checkers read)"""
    edges = []
    for module, path in modules.items():
        package = module if path.endswith("__init__.py") else module.rpartition(".")[0]

        def visit(node: ast.AST, module: str = module, package: str = package) -> None:
            for child in ast.iter_child_nodes(node):
                if _is_type_checking(child):
                    continue
                targets = []
                if isinstance(child, ast.Import):
                    targets = [alias.name for alias in child.names]
                elif isinstance(child, ast.ImportFrom):
                    base = child.module or ""
                    if child.level:
                        prefix = package.split(".")[:len(package.split(".")) - child.level + 1]
                        base = ".".join(prefix + ([base] if base else []))
                    targets = ["{}.{}".format(base, alias.name) if "{}.{}".format(base, alias.name) in modules
                               else base for alias in child.names]
                for target in targets:
                    while target and target not in modules:
                        target = target.rpartition(".")[0]
                    if target and target != module:  # a script importing itself under its module name
                        edges.append((module, target, child.lineno))
                visit(child)

        with open(path) as file_handler:
            visit(ast.parse(file_handler.read()))
    return edges


def _cycle(edges: List[Tuple[str, str, int]]) -> List[str]:
    """:return: ([str]) the modules of one import cycle, in order (empty: none)"""
    graph: Dict[str, Set[str]] = {}
    for importer, imported, _ in edges:
        graph.setdefault(importer, set()).add(imported)
    state: Dict[str, int] = {}  # 1: on the current path, 2: done
    path: List[str] = []

    def walk(module: str) -> List[str]:
        state[module] = 1
        path.append(module)
        for imported in sorted(graph.get(module, ())):
            if state.get(imported) == 1:
                return path[path.index(imported):] + [imported]
            if imported not in state:
                found = walk(imported)
                if found:
                    return found
        path.pop()
        state[module] = 2
        return []

    for module in sorted(graph):
        if module not in state:
            found = walk(module)
            if found:
                return found
    return []


def test_no_import_cycle_even_through_function_local_imports():
    modules = _modules()
    assert "stable_baselines.common.policies" in modules and "stable_baselines.gail.dataset.dataset" in modules
    edges = _imports(modules)
    found = {(importer, imported) for importer, imported, _ in edges}
    assert ("stable_baselines.common.policies", "stable_baselines.common.policy_parts.base") in found
    assert ("stable_baselines.common.vec_env", "stable_baselines.common.vec_env.vec_normalize") in found
    assert _cycle(edges) == []
    # the check finds a cycle when there is one
    assert _cycle(edges + [("stable_baselines.common.safe_loading.saved_objects",
                            "stable_baselines.gail.dataset.dataset", 0)])


def test_common_imports_no_algorithm():
    algorithms = tuple("stable_baselines." + name for name in ALGORITHMS)
    reaches = ["{} line {} imports {}".format(importer, line, imported)
               for importer, imported, line in _imports(_modules())
               if importer.startswith("stable_baselines.common") and imported.startswith(algorithms)]
    assert reaches == []


def _expert_dataset_pickle() -> bytes:
    from stable_baselines.gail import ExpertDataset
    traj_data = dict(obs=np.arange(40, dtype=np.float32).reshape(20, 2), actions=np.zeros((20, 1)),
                     rewards=np.ones(20), episode_returns=np.array([10.0, 10.0]),
                     episode_starts=np.isin(np.arange(20), [0, 10]))
    dataset = ExpertDataset(traj_data=traj_data, batch_size=4, verbose=0)
    dataset.prepare_pickling()
    return cloudpickle.dumps(dataset)


def test_expert_dataset_is_built_from_the_declared_class_or_refused_without_it(tmp_path):
    """A file holding an ExpertDataset gets GAIL's declared class: when stable_baselines.gail is not imported yet, the
    root package imports it (as the original did); without MPI, where GAIL cannot be imported, the file is refused,
    saying why, and nothing is imported."""
    path = tmp_path / "dataset.pkl"
    path.write_bytes(_expert_dataset_pickle())
    code = textwrap.dedent("""
        import sys
        if sys.argv[2] == "no mpi":
            sys.modules["mpi4py"] = None
        from stable_baselines.common import safe_pickle
        from stable_baselines.common.storage import persistence
        from stable_baselines.common.safe_loading.errors import SafeUnpicklingError
        data = open(sys.argv[1], "rb").read()
        try:
            loaded = safe_pickle.safe_loads(data, key="expert_dataset")
        except SafeUnpicklingError as error:
            print("refused:", error)
            print("gail imported:", any(name.startswith("stable_baselines.gail") for name in sys.modules))
        else:
            from stable_baselines.gail import ExpertDataset
            print("loaded:", type(loaded) is ExpertDataset, loaded.observations.shape,
                  persistence.EXPERT_DATASET.test(loaded))
    """)
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    lines = {}
    for mpi in ("mpi", "no mpi"):
        result = subprocess.run([sys.executable, "-c", code, str(path), mpi], capture_output=True, text=True, env=env,
                                cwd=REPO_ROOT, timeout=600)
        assert result.returncode == 0, result.stdout + result.stderr
        lines[mpi] = result.stdout.splitlines()
    assert lines["mpi"] == ["loaded: True (20, 2) True"]
    refused, imported = lines["no mpi"]
    assert refused.startswith("refused: Refusing to load entry 'expert_dataset'"), refused
    assert "stable_baselines.gail, which defines it, cannot be imported: it needs MPI, and mpi4py is not installed" \
        in refused, refused
    assert imported == "gail imported: False"


def _run(code: str, *args: str) -> List[str]:
    """:return: ([str]) the lines ``code`` prints, run in a fresh interpreter (it must succeed)"""
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)] + list(args), capture_output=True,
                            text=True, env=env, cwd=REPO_ROOT, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout.splitlines()


def test_classes_of_packages_not_imported_come_through_the_root_package_or_are_refused():
    """A file naming a class of one of our algorithm packages that the user has not imported (HER's model_class SAC,
    the zoo's CustomSACPolicy) gets it through the root package, which imports that package and nothing else, as the
    original did; without MPI a DDPG policy is refused saying why, and an unknown module of ours is refused: neither
    imports anything."""
    lines = _run("""
        import json, pickle, sys
        sys.modules["mpi4py"] = None  # MPI missing: stable_baselines.ddpg cannot import
        from stable_baselines.common import policies, safe_pickle  # noqa: F401
        from stable_baselines.common.safe_loading import classes
        from stable_baselines.common.safe_loading.errors import InvalidModelFileError

        def ref(module, name):
            return pickle.PROTO + bytes([2]) + pickle.GLOBAL + "{}\\n{}\\n".format(module, name).encode() + pickle.STOP

        def algorithms():
            return sorted({name.split(".")[1] for name in sys.modules if name.partition(".")[0] == "stable_baselines"
                           and name.split(".")[:2][-1] in json.loads(sys.argv[1])})

        refused = [("policy", ref("stable_baselines.ddpg.policies", "MlpPolicy")),
                   ("policy", ref("stable_baselines.not_an_algo.policies", "MlpPolicy"))]
        before = (sorted(sys.modules), dict(classes._ZOO_CLASSES))
        for key, data in refused:
            try:
                safe_pickle.safe_loads(data, key=key)
                print("loaded")
            except InvalidModelFileError as error:
                print("refused:" if type(error).__name__ == "SafeUnpicklingError" else "invalid:", error)
        print("unchanged:", before == (sorted(sys.modules), dict(classes._ZOO_CLASSES)))
        model_class = safe_pickle.safe_loads(ref("stable_baselines.sac.sac", "SAC"), key="model_class")
        zoo = safe_pickle.safe_loads(ref("utils.utils", "CustomSACPolicy"), key="policy")
        import stable_baselines.sac
        from stable_baselines.sac.policies import FeedForwardPolicy
        print("then:", model_class is stable_baselines.sac.SAC, issubclass(zoo, FeedForwardPolicy), algorithms())
    """, json.dumps(ALGORITHMS))
    assert len(lines) == 4, lines
    ddpg, unknown = lines[:2]
    assert ddpg.startswith("refused: Refusing to load entry 'policy' of the pickle of entry 'policy': it holds the "
                           "policy class stable_baselines.ddpg.policies.MlpPolicy (by reference) (no class of "
                           "stable_baselines.ddpg.policies is declared in this process, and stable_baselines.ddpg "
                           "cannot be imported: it needs MPI, and mpi4py is not installed"), ddpg
    assert "no class of stable_baselines.not_an_algo.policies is declared in this process, and " \
           "stable_baselines.not_an_algo cannot be imported: it is not one of the library's algorithm packages" \
           in unknown, unknown
    assert lines[2:] == ["unchanged: True", "then: True True ['sac']"]


# every file of the original library in tests/data: loading them imports no module of an algorithm folder
LEGACY_FILES = sorted(os.path.join(folder, name)
                      for folder, _, names in os.walk(os.path.join(REPO_ROOT, "tests", "data", "legacy_models"))
                      for name in names if name.endswith((".pkl", ".zip")) and "_rms" not in name)


def test_loading_the_legacy_files_imports_no_algorithm_module():
    """With the algorithms imported as a user does, the data of every legacy file loads to the very classes their
    modules define, and the loader imports nothing of an algorithm folder (not even a module already imported)."""
    assert len(LEGACY_FILES) > 50
    lines = _run("""
        import importlib, json, sys, warnings
        from stable_baselines import A2C, ACER, ACKTR, DDPG, DQN, PPO1, PPO2, SAC, TD3, TRPO  # noqa: F401
        from stable_baselines.common import save_util
        asked = []
        real_import = importlib.import_module
        importlib.import_module = lambda name, *args: asked.append(name) or real_import(name, *args)
        before = set(sys.modules)
        same = []
        for path in json.loads(sys.argv[1]):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                data, _ = save_util.load_model_file(path)
            policy = data["policy"]
            same.append(getattr(sys.modules[policy.__module__], policy.__qualname__) is policy)
        algorithms = tuple("stable_baselines.{}".format(name) for name in json.loads(sys.argv[2]))
        print("same classes:", len(same), all(same))
        print("asked:", sorted({name for name in asked if name.startswith(algorithms)}))
        print("imported:", sorted(name for name in set(sys.modules) - before if name.startswith(algorithms)))
    """, json.dumps(LEGACY_FILES), json.dumps(ALGORITHMS))
    assert lines == ["same classes: {} True".format(len(LEGACY_FILES)), "asked: []", "imported: []"]
