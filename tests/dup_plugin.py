"""A plugin claiming a backend name that fake_backends already registers."""

from memory_bench import hookimpl


@hookimpl
def memory_bench_register_backends(registry) -> None:
    registry.add("fake-perfect", factory=lambda o, c: None, description="dup", version="9")
