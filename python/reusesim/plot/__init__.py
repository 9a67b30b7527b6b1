"""The figures of `reusesim figure`, one module a concern:

  csv_input  the CSV files the figures read: their columns, reading and checking them, errors as
             FILE:LINE: ...
  output     the figures' style and their files (PNG and SVG, byte-identical for the same input,
             written atomically)
  geometry   oriented boxes, segment crossings and bucket grids in display pixels
  labels     the label placer: labels beside points and along lines, avoiding one another
  roofline   the arithmetic-intensity (roofline) figure
  energy     the energy breakdown and design-space figures
  commands   the command lines of scripts/plot_figure.py and scripts/plot_energy.py: arguments,
             notes and errors under the name of the program that calls them

Nothing here prints or exits but commands; the other modules raise InputError or OutputError and
hand notes to a callable they are given.
"""
