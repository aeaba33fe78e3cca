"""What the classroom adds to the math: exercise checks, the quiz, grading, pictures, widgets.

- :mod:`~qkv_helpers.classroom.checks` -- one module per lesson: each exercise's feedback;
- :mod:`~qkv_helpers.classroom.quiz` -- lesson 10's quiz;
- :mod:`~qkv_helpers.classroom.grading` -- what nbgrader's autograder runs;
- :mod:`~qkv_helpers.classroom.plots` -- the pictures, one module per idea;
- :mod:`~qkv_helpers.classroom.widgets` -- the sliders and buttons, one module per idea;
- :mod:`~qkv_helpers.classroom.style` -- fonts (Korean included) and the plot style;
- :mod:`~qkv_helpers.classroom.source_code` -- a function's code as lessons 14 and 15 print it.

Loaded on first use (``qk.checks``, ``qk.plots`` ...; ``qkv_helpers/__init__.py``), so
``import qkv_helpers`` does not import matplotlib or ipywidgets. Nothing below imports this
folder.
"""
