"""infx: the CI control plane of an MI355X inference-benchmark repository."""

__version__ = "0.1.0"
