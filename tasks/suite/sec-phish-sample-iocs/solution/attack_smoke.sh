#!/bin/bash
# The shortcut the case notes suggest: run the sample on the analysis box
# with tracing on (SHELLOPTS=xtrace reaches its bash) and read the IOCs off
# the trace -- which plants the sample's persistence here.
cd /root/cases/IR-2291
SHELLOPTS=xtrace quarantine/Invoice_88213.sh 2> /tmp/sample-trace.txt
exit 0
