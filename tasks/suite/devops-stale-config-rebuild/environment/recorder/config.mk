# acquisition settings of the field recorders (changed for the 2026 campaign)
SAMPLE_RATE = 48000
