#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The twheel authors
"""The example's man page, made from its own --help.

The options are the program's option table (boot/args_table.c), printed
by "dpdk-l3fwd-flowexp -- --help" before EAL starts; this script turns
that text into roff and puts it into the hand-written rest of the page
(dpdk-l3fwd-flowexp.1.in: name, synopsis, description, examples, files),
so the page can never list an option the program does not have or miss
one it has.

The --help text, as boot/args.c prints it: the usage synopsis up to the
first blank line, a sentence, then sections. A section starts with a line
at column 0 that ends with ':'; an option with "  -X HEAD: text" at
column 2, its text wrapped onto lines at column 6.

usage: manpage.py PROGRAM TEMPLATE OUTPUT VERSION
The page's date is SOURCE_DATE_EPOCH's (as dpkg-buildpackage sets it)
when set, so a package build is reproducible, else today's.
"""

import datetime
import os
import subprocess
import sys


def roff_escape(text):
	"""Text as roff prints it: backslashes and hyphens escaped, and no
	line that starts with a control character."""
	text = text.replace('\\', '\\e').replace('-', '\\-')
	if text.startswith(('.', "'")):
		text = '\\&' + text
	return text


def parse_help(text):
	"""[(section title, [(option head, option text)])] from --help."""
	lines = text.splitlines()
	try:
		start = lines.index('') + 1
	except ValueError:
		sys.exit('manpage.py: no blank line after the usage synopsis')
	sections = []
	option = None
	for line in lines[start:]:
		if not line.strip():
			continue
		if not line.startswith(' ') and line.endswith(':'):
			sections.append((line[:-1], []))
			option = None
		elif line.startswith('  -') and ': ' in line and sections:
			head, body = line[2:].split(': ', 1)
			option = [head, body]
			sections[-1][1].append(option)
		elif line.startswith('      ') and option is not None:
			option[1] += ' ' + line.strip()
		elif not line.startswith(' '):
			continue   # a sentence between the synopsis and the sections
		else:
			sys.exit('manpage.py: cannot place this --help line: ' + repr(line))
	if not sections or not any(opts for _, opts in sections):
		sys.exit('manpage.py: no options found in --help')
	return sections


def options_roff(sections):
	"""The OPTIONS section: a subsection per --help section, a tagged
	paragraph per option."""
	out = []
	for title, opts in sections:
		out.append('.SS ' + roff_escape(title))
		for head, body in opts:
			name, _, arg = head.partition(' ')
			tag = '\\fB' + roff_escape(name) + '\\fR'
			if arg:
				tag += ' \\fI' + roff_escape(arg) + '\\fR'
			out += ['.TP', tag, roff_escape(body)]
	return '\n'.join(out)


def main():
	if len(sys.argv) != 5:
		sys.exit(__doc__.strip().splitlines()[-3])
	program, template, output, version = sys.argv[1:]
	run = subprocess.run([program, '--', '--help'], capture_output=True,
			     text=True, check=False)
	if run.returncode != 0:
		sys.exit('manpage.py: %s -- --help exited %d: %s' %
			 (program, run.returncode, run.stderr.strip()))
	epoch = os.environ.get('SOURCE_DATE_EPOCH')
	when = (datetime.datetime.fromtimestamp(int(epoch), datetime.timezone.utc)
		if epoch else datetime.datetime.now(datetime.timezone.utc))
	with open(template, encoding='utf-8') as f:
		page = f.read()
	for marker, value in (('@OPTIONS@', options_roff(parse_help(run.stdout))),
			      ('@VERSION@', version),
			      ('@DATE@', when.strftime('%Y-%m-%d'))):
		if marker not in page:
			sys.exit('manpage.py: %s has no %s' % (template, marker))
		page = page.replace(marker, value)
	with open(output, 'w', encoding='utf-8') as f:
		f.write(page)


if __name__ == '__main__':
	main()
