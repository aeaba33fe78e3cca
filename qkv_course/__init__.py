"""The classroom side of the course: put the lessons in a learner's own folder and open
JupyterLab there (``qkv-course lab``). Standard library only; the math is in ``qkv_helpers``.

    qkv-course lab [DIR] [--lang ko|en]    copy or update the lessons in DIR, open JupyterLab
    qkv-course copy [DIR]                  only copy or update (see :mod:`qkv_course.learner`)
"""
