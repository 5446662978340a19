# agent-sessions-opencode.sh: the OpenCode case of agent-sessions.sh, which sources it (it uses
# that script's install and run). OpenCode comes from npm as opencode-ai, whose platform binary is
# an optional dependency; it runs offline against agentsim's Chat Completions route through a
# custom @ai-sdk/openai-compatible provider. OpenCode keeps its sessions in a SQLite database:
# the case keeps `opencode export` of each session, the JSON form strata-eval reads.
opencode_version=1.18.33
opencode="$(install opencode-ai "$opencode_version")/node_modules/.bin/opencode"
run opencode -agent opencode -bin "$opencode"
