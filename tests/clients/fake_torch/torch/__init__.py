"""A stand-in for the torch package (tests/clients/raise_versions.sh): what
devcheck's Python hook looks for in sys.modules["torch"] -- the types it
tests values against -- and nothing else, so the raise-time path runs on
every CPython, none of which has PyTorch but the test virtualenv's."""


class device:
    def __init__(self, name):
        self.name = name

    def __str__(self):
        return self.name


class Tensor:
    def __init__(self, dev, ptr):
        self.device = device(dev)
        self.is_cuda = dev.startswith("cuda")
        self._ptr = ptr

    def data_ptr(self):
        return self._ptr

    def numel(self):
        return 1


class _nn:
    class Module:
        pass

    class Parameter(Tensor):
        pass


nn = _nn
