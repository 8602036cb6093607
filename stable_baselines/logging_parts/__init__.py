"""
The pieces behind :mod:`stable_baselines.logger`, one concern per module:

- :mod:`~stable_baselines.logging_parts.formats`: where a dump goes (terminal table, text file, JSON lines,
  CSV, tensorboard events) and :func:`~stable_baselines.logging_parts.formats.make_output_format`;
- :mod:`~stable_baselines.logging_parts.core`: the :class:`~stable_baselines.logging_parts.core.Logger`
  that gathers the values of one iteration and hands them to its formats, and the message levels;
- :mod:`~stable_baselines.logging_parts.readers`: reading the files back as ``pandas`` data frames.

User code imports :mod:`stable_baselines.logger`, which re-exports all of it.
"""
