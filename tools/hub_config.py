# JupyterHub settings for the course: copy this file to the hub's config folder
# (TLJH: /opt/tljh/config/jupyterhub_config.d/qkv-course.py, then sudo tljh-config reload;
# Zero to JupyterHub: paste it under hub.extraConfig.qkv-course in config.yaml).
# make hub-test runs its hub with this same file (tools/hub_test.py).
c = get_config()  # noqa: F821

# One BLAS thread per kernel: what the course is measured with (make test, make hub-test).
# Without it numpy starts one thread per core in every student's kernel.
c.Spawner.environment.update({
    "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
})

# Idle kernels are shut down: closing a notebook's tab does not stop its kernel, so without
# this every lesson a student opened keeps its memory until the server stops. A kernel
# that ran nothing for 30 minutes is stopped, even if its tab is still open (its outputs
# stay; Run All brings the lesson back). The sizing table of the teacher guide counts on it.
c.Spawner.args.extend([
    "--MappingKernelManager.cull_idle_timeout=1800",
    "--MappingKernelManager.cull_interval=300",
    "--MappingKernelManager.cull_connected=True",
])
