"""Suite-wide setup."""

import functools

import typer.main
import typer.testing

# typer's CliRunner builds the click command from every command's signature on each invoke (37 ms,
# a few hundred times in the suite); acesim's app does not change while the suite runs, so one
# build per app serves every invoke.  (Its help's {late:...} lists are filled in on that one command
# the first time a help is shown.)
typer.testing._get_command = functools.cache(typer.main.get_command)
