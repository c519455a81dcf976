#!/usr/bin/env python3
"""check_readme_settings.py: README's Environment table is what
`smrun --info=markdown` prints from the core's table of settings
(src/core/settings.c), so the two cannot drift. With --update, rewrites the
README's table (between the marker comments) instead of checking it.

Usage: check_readme_settings.py [--update] SMRUN README.md"""
import difflib
import subprocess
import sys

update = '--update' in sys.argv
smrun, readme = [a for a in sys.argv[1:] if a != '--update']
BEGIN, END = '<!-- smrun --info=markdown -->\n', '<!-- end smrun --info=markdown -->\n'

table = subprocess.run([smrun, '--info=markdown'], capture_output=True, text=True, check=True).stdout
text = open(readme).read()
if BEGIN not in text or END not in text:
    sys.exit(f'check_readme_settings: {readme} has no "{BEGIN.strip()}" ... "{END.strip()}" block')
head, rest = text.split(BEGIN, 1)
now, tail = rest.split(END, 1)
if now == table:
    print(f'check_readme_settings: {readme} shows the {table.count(chr(10)) - 2} settings of smrun --info')
    sys.exit(0)
if update:
    open(readme, 'w').write(head + BEGIN + table + END + tail)
    print(f'check_readme_settings: {readme} updated')
    sys.exit(0)
sys.stdout.writelines(difflib.unified_diff(now.splitlines(True), table.splitlines(True), 'README.md', 'smrun --info=markdown'))
print(f'check_readme_settings: {readme} differs from smrun --info=markdown; '
      f'run {sys.argv[0]} --update {smrun} {readme}')
sys.exit(1)
