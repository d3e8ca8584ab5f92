"""Encrypt the traffic between the build and the chapters' kernels.

MyST-NB executes each chapter through nbclient, which starts the kernel with
jupyter_client's defaults: TCP on 127.0.0.1 without encryption. ipykernel then
logs "Kernel is running over TCP without encryption" once per chapter, a
warning a reader of the build log takes for a failure. jupyter_client can
give the kernel CurveZMQ keys when it starts it (``transport_encryption``),
but neither MyST-NB nor jupyter-cache passes a configuration to the kernel
manager, so this extension sets that setting's default to ``"auto"``, inside
the build process only. (IPC sockets, the other remedy, are addressed by
paths relative to the working directory, and the kernel runs in ``book/``.)
"""

from jupyter_client.manager import KernelManager


def setup(app):
    KernelManager.class_traits()["transport_encryption"].default_value = "auto"
    return {"parallel_read_safe": True, "parallel_write_safe": True}
