"""
Upper bounds applied while reading a model file, checked before anything of that size is allocated.

They are module attributes so that a user with an unusually large (trusted) model can raise them, e.g.
``stable_baselines.common.safe_loading.limits.MAX_PARAMETER_BYTES = 8 << 30``.
"""
from stable_baselines.common.safe_loading.errors import InvalidModelFileError

#: largest model file (zip or old pickle format) read from disk or a file object
MAX_FILE_BYTES = 2 << 30
#: largest decompressed ``data`` member (JSON) of a zip model file
MAX_DATA_BYTES = 256 << 20
#: largest decompressed ``parameter_list`` member
MAX_PARAMETER_LIST_BYTES = 16 << 20
#: largest total of the parameter arrays (the ``parameters`` member, or the arrays of an old pickle file)
MAX_PARAMETER_BYTES = 1 << 30
#: largest total of the arrays of an expert dataset file (``ExpertDataset(expert_path=...)``)
MAX_DATASET_BYTES = 1 << 30
#: largest image of an expert dataset whose observations are image files (width x height x channels bytes)
MAX_IMAGE_BYTES = 64 << 20
#: largest replay buffer file (``stable_baselines.common.storage.buffer_files.load_buffer``): its size on disk and the
#: total of the arrays the buffer it describes allocates (an Atari buffer of 1e6 frame stacks takes about 7.5 GB)
MAX_REPLAY_BUFFER_BYTES = 16 << 30
#: largest capacity (transitions) of a replay buffer read from a file
MAX_REPLAY_BUFFER_SIZE = 1 << 31
#: largest pickle (a ``:serialized:`` entry, an old ``.pkl`` model, a VecNormalize or statistics file)
MAX_PICKLE_BYTES = 1 << 30
#: most instructions in one pickle (legitimate ones hold thousands; each costs about a microsecond to read)
MAX_PICKLE_INSTRUCTIONS = 10_000_000
#: deepest nesting of lists / dicts in an unpickled value (JSON text is limited by the interpreter's recursion limit)
MAX_NESTING = 100
#: most items (list items and object entries) of one JSON member
MAX_JSON_ITEMS = 2_000_000
#: most objects in one unpickled value (shared references count once)
MAX_OBJECTS = 1_000_000
#: most values in one unpickled value counted as a walk over it sees them: a value referenced n times counts n times
#: (a pickle of a few bytes can nest shared references into 2**30 visits; legitimate ones hold thousands)
MAX_EXPANDED_VALUES = 1 << 21
#: most members of a zip archive (the model file, the ``parameters`` archive)
MAX_ZIP_MEMBERS = 100_000
#: most functions stored by value in one model file (each is interpreted by the bytecode evaluator)
MAX_FUNCTIONS = 100
#: largest number of elements of one array
MAX_ARRAY_ELEMENTS = 1 << 31
#: largest space a model file may describe (elements of a Box; values of a Discrete; their sum for the composite
#: spaces): the networks built for it are allocated before the file's parameters are read
MAX_SPACE_ELEMENTS = 1 << 22
#: widest layer (``layers``, ``net_arch``, ``n_lstm`` of ``policy_kwargs``) a model file may describe
MAX_LAYER_WIDTH = 1 << 13
#: most layers in one network a model file may describe (``layers``, each list of ``net_arch``)
MAX_LAYERS = 64
#: most parameters of one network a model file may describe, estimated from its spaces and architecture (layer
#: widths, the CNN on the image size, the LSTM) before anything is built; Atari's CNN policy has about 1.7 million
MAX_NETWORK_PARAMETERS = 1 << 25
#: longest ``n_steps`` of a recurrent policy's model file (TensorFlow unrolls the recurrence over the steps when the
#: model is built, before its parameters are read: 1024 steps take about 30 s)
MAX_RECURRENT_STEPS = 2048
#: most random values a training state may have a resumed model draw (and drop) to bring TensorFlow's seeded random
#: streams where they stood (about 12 ns a value on a current CPU: the limit is about half a minute; a value of an
#: op of scalar output counts as 2048, as each costs a session call). A million SAC steps draw about 2**31.
MAX_RANDOM_FAST_FORWARD = 1 << 31
#: largest integer (in bits) accepted in an unpickled value (random-generator states hold 128-bit ones)
MAX_INT_BITS = 4096


def check_size(size: int, limit: int, what: str) -> None:
    """
    Refuse ``size`` bytes of ``what`` when it exceeds ``limit``.

    :param size: (int) the size found (declared or measured)
    :param limit: (int) the largest size accepted
    :param what: (str) what is measured, for the message (e.g. "the 'data' member")
    :raises InvalidModelFileError: when it is too large
    """
    if size > limit:
        raise InvalidModelFileError("{} is {} bytes, more than the {} bytes a model file may hold "
                                    "(stable_baselines.common.safe_loading.limits)".format(what, size, limit))


class Budget(object):
    """
    What one model file may still cost while it is converted (its pickles share it): objects and functions.
    """

    def __init__(self) -> None:
        self.objects = MAX_OBJECTS  # read when a budget starts, so that a raised limit applies
        self.functions = MAX_FUNCTIONS

    def spend_object(self, what: str) -> None:
        """
        :param what: (str) the file or entry, for the message
        """
        self.objects -= 1
        if self.objects < 0:
            raise InvalidModelFileError("{} holds more than {} objects".format(what, MAX_OBJECTS))

    def spend_function(self, what: str) -> None:
        """
        :param what: (str) the file or entry, for the message
        """
        self.functions -= 1
        if self.functions < 0:
            raise InvalidModelFileError("{} stores more than {} functions".format(what, MAX_FUNCTIONS))

