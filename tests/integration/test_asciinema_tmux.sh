#!/bin/bash
# asciinema started directly by tmux (the pane's process). tmux SIGCONTs a pane process that
# stops, so blaude must not pause it: it mutes it (output straight to the real terminal).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/asciinema_lib.sh"

tm_start 80 24 "$(asciinema_cmd)"
drive_session mute
check "the log says why it did not pause" grep -q 'resumes stopped children' "$(log_file)"
check_cast
finish
