// Package explore is the exploration sandbox of permission generation
// (package generate): a generator runs in a fresh copy-on-write rootfs
// of the task's image, as the task's agent user, under the generation
// policy (GenerationPolicy: read everything, write only its answer at
// OutFile, execute only the InspectionTools and itself) and a stricter
// seccomp filter (GenerationFilter: no metadata, xattr or chattr
// changes), traced; nothing it does reaches the image. Run runs a
// `cmd:` generator as its container's gated init; RunModel runs an
// openai generator's loop here with its tool calls in the toolbox
// (taskrun/internal/session), which is then the one program it may run
// besides the inspection tools. The Exploration says what the
// generator printed and wrote, what it read, and what was refused.
package explore
