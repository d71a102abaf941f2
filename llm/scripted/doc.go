// Package scripted plays model sessions written down in advance: a Script
// is JSON lines, an optional capabilities line and then one line per model
// response, and a Model streams each response in small chunks of varying
// size, so that code which must handle markers split across chunks is
// exercised by every run.
//
//	{"capabilities":{"tools":true,"thinking":true}}
//	{"thinking":"The user wants a file.","tool_calls":[{"name":"write_file","arguments":{"path":"hello.txt","content":"hi"}}]}
//	{"content":"Created hello.txt. [TASK_COMPLETE]"}
//
// It is an ordinary (non-test) package so that programs can offer
// "-model script:FILE" without linking test helpers; llm/llmtest re-exports
// it under its historical names (ScriptedModel, NewScripted, …) beside the
// fake servers and the recorder.
package scripted
