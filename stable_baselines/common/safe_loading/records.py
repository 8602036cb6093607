"""
Inert records: what a pickle stream describes, kept as data.

The reader (:mod:`.pickle_reader`) turns every instruction that would import, call or instantiate something into
one of these records; nothing they describe is ever executed. The converters (:mod:`.converters`) then decide,
record by record, whether it is one of the legitimate kinds of a model file and build it from validated fields.
"""
from typing import Any, List, Optional, Tuple


class Ref(object):
    """
    A global named by the pickle (``module.name``): a class, function or constant it would import.

    :param module: (str) module name
    :param name: (str) (qualified) attribute name
    """

    __slots__ = ("module", "name")

    def __init__(self, module: str, name: str) -> None:
        self.module = module
        self.name = name

    @property
    def dotted(self) -> str:
        """(str) ``module.name``"""
        return "{}.{}".format(self.module, self.name)

    def __repr__(self) -> str:
        return "<reference to {}>".format(self.dotted)


class Call(object):
    """
    What the pickle would build by calling something: ``func(*args)`` (REDUCE), ``cls.__new__(cls, *args,
    **kwargs)`` (NEWOBJ, NEWOBJ_EX) or ``cls(*args)`` (INST, OBJ), followed by the state, items and entries
    the stream then applies to the result (BUILD, APPEND(S), SETITEM(S)).

    :param func: (Any) the callable (usually a :class:`Ref`)
    :param args: (tuple) positional arguments
    :param kwargs: (dict) keyword arguments (NEWOBJ_EX only)
    :param how: (str) 'reduce', 'newobj' or 'inst'
    """

    __slots__ = ("func", "args", "kwargs", "how", "states", "items", "entries")

    def __init__(self, func: Any, args: tuple, kwargs: Optional[dict] = None, how: str = "reduce") -> None:
        self.func = func
        self.args = args
        self.kwargs = kwargs or {}
        self.how = how
        self.states: List[Any] = []
        self.items: List[Any] = []
        self.entries: List[Tuple[Any, Any]] = []

    @property
    def target(self) -> str:
        """(str) the dotted name of the callable, as far as it is known"""
        if isinstance(self.func, Ref):
            return self.func.dotted
        if isinstance(self.func, Call):
            return "{}(...)".format(self.func.target)
        return type(self.func).__name__

    def __repr__(self) -> str:
        return "<call of {} (never run)>".format(self.target)
