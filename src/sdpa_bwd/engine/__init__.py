"""Our engine: the public PyTorch API (``api``), the launcher (``launch``, ``launch_cache``,
``tuning``), the compile watch (``compiles``) and the Triton and Gluon kernels (``kernels``).

Nothing is imported here: the problem model and the conformance harness load without Triton."""
