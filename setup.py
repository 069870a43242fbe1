"""The one thing pyproject.toml cannot say without setuptools' experimental options: the fast
verifier's compiled kernel (spades_replay/replayer/_verify_kernel.c, docs/performance.md). It is
optional: where no C compiler is found the install goes on without it, and the verifier runs
its pure-Python functions."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "spades_replay.replayer._verify_kernel",
            sources=["spades_replay/replayer/_verify_kernel.c"],
            optional=True,
        )
    ]
)
