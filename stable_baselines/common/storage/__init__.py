"""
What a model file holds beyond the original's three members, and how it is checked: which entries may set what on
a model (``persistence``), the extra zip members features add (``extra_members``) and replay buffers written to
files (``buffer_files``); and the frames of image observations in a replay buffer, each stored once
(``frame_store``). The original's reading and writing of the archive is
:mod:`stable_baselines.common.save_util`; reading pickles without running code is
:mod:`stable_baselines.common.safe_loading`.
"""
