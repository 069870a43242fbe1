"""The one thing pyproject.toml cannot say without setuptools' experimental options: the
compiled kernels of the fast verifier (spades_replay/replayer/_verify_kernel.c), of the
shape check (spades_replay/record/_shape_kernel.c) and of self-play's card play
(spades_replay/play/_play_kernel.c), docs/performance.md. They are optional: where no C
compiler is found the install goes on without them, and each runs its pure-Python
functions."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "spades_replay.replayer._verify_kernel",
            sources=["spades_replay/replayer/_verify_kernel.c"],
            optional=True,
        ),
        Extension(
            "spades_replay.record._shape_kernel",
            sources=["spades_replay/record/_shape_kernel.c"],
            optional=True,
        ),
        Extension(
            "spades_replay.play._play_kernel",
            sources=["spades_replay/play/_play_kernel.c"],
            optional=True,
        ),
    ]
)
