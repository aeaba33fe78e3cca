# JupyterLab settings for the course, passed by `make lab` (--config=tools/jupyter_lab_config.py)
# through qkv_course, which chooses the folder (the learner's copy, my_lessons/) and the lesson
# it opens at (the first lesson in the learner's language); this file holds what does not
# depend on the language. The wheel installs it as <prefix>/share/qkv-course/ for qkv-course lab.
# ruff: noqa: F821  (jupyter defines `c` when it runs this file)

# Listen on this machine only; token authentication stays on (the default).
c.ServerApp.ip = "127.0.0.1"

# Lessons are written in notebooks/src/*.py and built into notebooks/ko and notebooks/en:
# the sources look openable but are not for learners, so the file browser does not show
# them. The first five patterns are jupyter_server's defaults.
c.ContentsManager.hide_globs = ["__pycache__", "*.pyc", "*.pyo", ".DS_Store", "*~", "src"]

# No "Would you like to get notified about official Jupyter news?" prompt, no update check:
# the course works offline and a classroom does not need the question thirty times.
c.LabApp.news_url = None
c.LabApp.check_for_updates_class = "jupyterlab.NeverCheckForUpdate"
# JupyterLab 4 asks its news question whenever the setting fetchNews is "none" (unset),
# whatever news_url says: tools/lab_ui/<ko|en>/overrides.json, the defaults' folder
# (app_settings_dir) that `make lab` passes with the interface's language, answers "false",
# so a learner can still change it in Settings.

# The course's own JupyterLab extension (tools/lab_ext/README.md): Run All pressed while the
# lesson's kernel is still starting waits for it and runs every cell. It replaces JupyterLab's
# cell executor (which its package.json turns off while it is there).
import os  # noqa: E402

c.LabApp.extra_labextensions_path = [
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "lab_ext")]
