"""
What the callback tests of the algorithms share: a callback that writes down, in order, the hooks a
model's ``learn`` calls, so that a test can assert the order of the training stages.
"""
from typing import List, Optional, Sequence

from stable_baselines.common.callbacks import BaseCallback

HOOKS = ("start", "rollout_start", "rollout_end", "end")


class HookRecorder(BaseCallback):
    """
    Appends a name to ``events`` at each of ``on_training_start``, ``on_rollout_start``, ``on_rollout_end``
    and ``on_training_end``. ``on_step`` records nothing and keeps training going; subclasses say what a step
    records and when to stop.

    :param events: (list) the list to append to (a new one, ``self.events``, by default)
    :param names: (tuple) the names of the four hooks, in the order above; None leaves a hook unrecorded
    """

    def __init__(self, events: Optional[List[str]] = None, names: Sequence[Optional[str]] = HOOKS) -> None:
        super().__init__()
        self.events = [] if events is None else events
        self.hook_names = tuple(names)

    def _record(self, index: int) -> None:
        name = self.hook_names[index]
        if name is not None:
            self.events.append(name)

    def _on_training_start(self) -> None:
        self._record(0)

    def _on_rollout_start(self) -> None:
        self._record(1)

    def _on_rollout_end(self) -> None:
        self._record(2)

    def _on_training_end(self) -> None:
        self._record(3)

    def _on_step(self) -> bool:
        return True


class StepRecorder(HookRecorder):
    """
    A :class:`HookRecorder` that also records "step" at every ``on_step`` and stops training once ``keep_going``
    says so.

    :param keep_going: (callable) called with the callback at each step; False ends training
    :param events: (list) as for :class:`HookRecorder`
    :param names: (tuple) as for :class:`HookRecorder`
    """

    def __init__(self, keep_going, events: Optional[List[str]] = None, names: Sequence[Optional[str]] = HOOKS) -> None:
        super().__init__(events, names)
        self.keep_going = keep_going

    def _on_step(self) -> bool:
        self.events.append("step")
        return bool(self.keep_going(self))
