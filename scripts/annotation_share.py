"""
Share of public functions and methods whose signature is fully annotated.

Counted: module-level functions and methods of module-level (or nested) classes whose name does
not start with ``_``, plus ``__init__`` and ``__call__``. Methods of classes whose own name starts
with ``_`` and functions defined inside other functions are not public and are skipped.
"Fully annotated" means every parameter (``*args`` and ``**kwargs`` included, the leading
``self``/``cls`` of a method excluded) and the return carry an annotation.

Usage::

    python scripts/annotation_share.py                      # per file and total, for stable_baselines/
    python scripts/annotation_share.py --by-folder          # per folder instead of per file
    python scripts/annotation_share.py --missing PATH...    # also list the functions still lacking annotations
    python scripts/annotation_share.py --min 90             # exit status 1 when the total is below 90 %
"""
import argparse
import ast
import os
import sys
from typing import Dict, Iterator, List, Tuple

PUBLIC_DUNDERS = ("__init__", "__call__")
FunctionNode = (ast.FunctionDef, ast.AsyncFunctionDef)


def is_public(name: str) -> bool:
    """
    :param name: (str) function or method name
    :return: (bool) whether the name counts as public API
    """
    return not name.startswith("_") or name in PUBLIC_DUNDERS


def is_static(node: ast.AST) -> bool:
    """
    :param node: (ast.AST) a function definition
    :return: (bool) whether it is decorated with ``staticmethod``
    """
    decorators = getattr(node, "decorator_list", [])
    return any(isinstance(dec, ast.Name) and dec.id == "staticmethod" for dec in decorators)


def fully_annotated(node: ast.AST, is_method: bool) -> bool:
    """
    :param node: (ast.FunctionDef or ast.AsyncFunctionDef) the definition to inspect
    :param is_method: (bool) whether the first positional parameter is ``self``/``cls``
    :return: (bool) whether all parameters (bar self/cls) and the return are annotated
    """
    args = node.args
    positional = list(args.posonlyargs) + list(args.args)
    if is_method and not is_static(node) and positional:
        positional = positional[1:]
    params = positional + list(args.kwonlyargs)
    params += [arg for arg in (args.vararg, args.kwarg) if arg is not None]
    return node.returns is not None and all(param.annotation is not None for param in params)


def public_functions(tree: ast.Module) -> Iterator[Tuple[str, int, bool]]:
    """
    Walk the module's public functions and methods.

    :param tree: (ast.Module) parsed source
    :return: (Iterator[Tuple[str, int, bool]]) qualified name, line number, fully annotated
    """
    def visit(body: List[ast.stmt], prefix: str, in_class: bool) -> Iterator[Tuple[str, int, bool]]:
        for node in body:
            if isinstance(node, FunctionNode):
                if is_public(node.name):
                    yield prefix + node.name, node.lineno, fully_annotated(node, in_class)
            elif isinstance(node, ast.ClassDef):
                if not node.name.startswith("_"):
                    yield from visit(node.body, prefix + node.name + ".", True)
            elif isinstance(node, (ast.If, ast.Try)):
                # definitions guarded by ``if mpi4py is available`` or ``try: import ...``
                blocks = [node.body, node.orelse] + [handler.body for handler in getattr(node, "handlers", [])]
                for block in blocks:
                    yield from visit(block, prefix, in_class)

    yield from visit(tree.body, "", False)


def python_files(paths: List[str]) -> List[str]:
    """
    :param paths: ([str]) files or directories
    :return: ([str]) the .py files among or below them, sorted
    """
    found = []
    for path in paths:
        if os.path.isfile(path):
            found.append(path)
            continue
        for root, _, files in os.walk(path):
            found.extend(os.path.join(root, name) for name in files if name.endswith(".py"))
    return sorted(found)


def measure(paths: List[str]) -> Dict[str, List[Tuple[str, int, bool]]]:
    """
    :param paths: ([str]) files or directories to measure
    :return: (dict) file path -> list of (qualified name, line, fully annotated)
    """
    result = {}
    for path in python_files(paths):
        with open(path, encoding="utf-8") as file_handler:
            tree = ast.parse(file_handler.read(), filename=path)
        result[path] = list(public_functions(tree))
    return result


def share(entries: List[Tuple[str, int, bool]]) -> Tuple[int, int]:
    """
    :param entries: ([(str, int, bool)]) functions as returned by ``measure``
    :return: ((int, int)) number fully annotated, number counted
    """
    return sum(1 for _, _, done in entries if done), len(entries)


def percent(done: int, total: int) -> str:
    """
    :param done: (int) number fully annotated
    :param total: (int) number counted
    :return: (str) the share formatted for the table
    """
    return f"{100.0 * done / total:5.1f} %" if total else "    - "


def main(argv: List[str]) -> int:
    """
    :param argv: ([str]) command-line arguments
    :return: (int) exit status
    """
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].strip())
    parser.add_argument("paths", nargs="*", default=["stable_baselines"], help="files or directories")
    parser.add_argument("--by-folder", action="store_true", help="aggregate per directory")
    parser.add_argument("--missing", action="store_true", help="list functions lacking annotations")
    parser.add_argument("--min", type=float, default=None, help="fail when the total share is below this percentage")
    args = parser.parse_args(argv)

    per_file = measure(args.paths)
    rows: Dict[str, List[Tuple[str, int, bool]]] = {}
    for path, entries in per_file.items():
        key = os.path.dirname(path) + "/" if args.by_folder else path
        rows.setdefault(key, []).extend(entries)

    width = max([len(key) for key in rows] + [5])
    for key in sorted(rows):
        done, total = share(rows[key])
        if total:
            print(f"{key:<{width}}  {done:4d}/{total:<4d} {percent(done, total)}")
    all_entries = [entry for entries in per_file.values() for entry in entries]
    done, total = share(all_entries)
    print(f"{'TOTAL':<{width}}  {done:4d}/{total:<4d} {percent(done, total)}")

    if args.missing:
        print("\nnot fully annotated:")
        for path, entries in sorted(per_file.items()):
            for name, line, ok in entries:
                if not ok:
                    print(f"  {path}:{line}: {name}")
    if args.min is not None and total and 100.0 * done / total < args.min:
        print(f"annotation share {100.0 * done / total:.1f} % is below {args.min:.1f} %", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
