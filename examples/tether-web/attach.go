package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	_ "image/gif" // image.DecodeConfig checks attached GIFs
	_ "image/jpeg"
	_ "image/png"
	"net/http"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/llm"
)

// What a prompt may carry. Text goes into the prompt, so its bound is
// what a model's window can spare; images are bounded by what vision
// backends accept in one request.
const (
	maxAttachments     = 20
	maxTextAttachment  = 256 << 10
	maxImageAttachment = 5 << 20
	maxAttachedBytes   = 20 << 20 // all of one prompt's files together
	// maxPromptBody bounds a prompt request: the text and the files,
	// base64 (4 bytes for 3) in JSON.
	maxPromptBody = maxBody + maxAttachedBytes/3*4 + 4<<10
)

// errTooLarge: an attachment, or all of them, over a limit (413).
var errTooLarge = errors.New("too large")

// attachment is a file the page attached to a prompt, as the browser
// sent it. Nothing of it is trusted: the name is only a label, the type
// only a claim, and the data is checked for what it is.
type attachment struct {
	Name string `json:"name"`
	// Type is the MIME type the browser guessed from the file name.
	Type string `json:"type,omitempty"`
	// Data is the file's bytes, base64 (standard alphabet, padded).
	Data string `json:"data"`
}

// imageTypes are the images vision backends take (Ollama, and OpenAI's
// PNG, JPEG, WEBP and GIF), as http.DetectContentType names them.
var imageTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

// readAttachments turns a prompt's attachments into context for the
// agent: a text file becomes an attachment labelled with its name, an
// image an image part of the prompt, for a model that takes images. The
// kind is decided by the bytes, never by the declared type or the name.
// Errors name the file and say what is allowed; a size over a limit
// wraps errTooLarge.
func (s *server) readAttachments(ctx context.Context, atts []attachment) ([]agent.Attachment, []llm.Image, error) {
	if len(atts) > maxAttachments {
		return nil, nil, fmt.Errorf("%w: %d files attached; attach at most %d to one prompt", errBadRequest, len(atts), maxAttachments)
	}
	var (
		texts  []agent.Attachment
		images []llm.Image
		total  int
	)
	for i, a := range atts {
		name, err := attachmentName(a.Name)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: attachment %d: %v", errBadRequest, i+1, err)
		}
		if n := base64.StdEncoding.DecodedLen(len(a.Data)); n > maxImageAttachment+3 {
			return nil, nil, fmt.Errorf("%w: %s is over %s; images may be %s, text files %s", errTooLarge, name, mib(maxImageAttachment), mib(maxImageAttachment), kib(maxTextAttachment))
		}
		data, err := base64.StdEncoding.DecodeString(a.Data)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: %s: \"data\" is not base64 (%v); send the file's bytes base64-encoded", errBadRequest, name, err)
		}
		if len(data) == 0 {
			return nil, nil, fmt.Errorf("%w: %s is empty; attach a file with something in it", errBadRequest, name)
		}
		if total += len(data); total > maxAttachedBytes {
			return nil, nil, fmt.Errorf("%w: the attached files come to more than %s together; attach fewer or smaller ones", errTooLarge, mib(maxAttachedBytes))
		}
		sniffed, _, _ := strings.Cut(http.DetectContentType(data), ";")
		switch {
		case imageTypes[sniffed]:
			if len(data) > maxImageAttachment {
				return nil, nil, fmt.Errorf("%w: %s is %s; an image may be at most %s", errTooLarge, name, mib(len(data)), mib(maxImageAttachment))
			}
			if sniffed != "image/webp" { // the standard library reads the others' headers
				if _, _, err := image.DecodeConfig(bytes.NewReader(data)); err != nil {
					return nil, nil, fmt.Errorf("%w: %s starts like %s but is not a readable image (%v)", errBadRequest, name, sniffed, err)
				}
			}
			images = append(images, llm.Image{MIMEType: sniffed, Data: data})
		case strings.HasPrefix(strings.ToLower(a.Type), "image/"):
			return nil, nil, fmt.Errorf("%w: %s is declared %s but its content is not a PNG, JPEG, GIF or WebP image, the images models take", errBadRequest, name, a.Type)
		case !utf8.Valid(data) || bytes.IndexByte(data, 0) >= 0:
			return nil, nil, fmt.Errorf("%w: %s is neither UTF-8 text nor an image (its content looks like %s); attach text files (UTF-8) or PNG, JPEG, GIF or WebP images", errBadRequest, name, sniffed)
		case len(data) > maxTextAttachment:
			return nil, nil, fmt.Errorf("%w: %s is %s; a text file may be at most %s (attach the part that matters, or let the agent read it from the workspace)", errTooLarge, name, kib(len(data)), kib(maxTextAttachment))
		default:
			texts = append(texts, agent.Attachment{Path: name, Content: string(data)})
		}
	}
	if len(images) > 0 {
		caps, err := llm.CapabilitiesOf(ctx, s.model)
		if err != nil {
			return nil, nil, fmt.Errorf("images attached, and the model %s could not say whether it takes images: %w", s.modelName, err)
		}
		if !caps.Vision {
			return nil, nil, fmt.Errorf("%w: images attached, but the model %s does not take images (it reports no vision); start the server with a vision model (e.g. -model ollama:qwen2.5vl:7b) or attach text files only", errBadRequest, s.modelName)
		}
	}
	return texts, images, nil
}

// attachmentName is the label a file goes in under: its base name. The
// browser sends a name, not a path, and the name is never used to find a
// file; control and format characters (newlines, bidi overrides), which
// could forge the label the model reads, are refused.
func attachmentName(name string) (string, error) {
	if strings.IndexFunc(name, func(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }) >= 0 {
		return "", fmt.Errorf("name %q holds control or formatting characters; rename the file", name)
	}
	if !utf8.ValidString(name) {
		return "", fmt.Errorf("name %q is not UTF-8", name)
	}
	base := path.Base(strings.ReplaceAll(name, `\`, "/"))
	if base == "." || base == "/" || base == ".." || strings.TrimSpace(base) == "" {
		return "", fmt.Errorf("no file name; send the file's name in \"name\"")
	}
	if len(base) > 255 {
		return "", fmt.Errorf("name of %d bytes; file names have at most 255", len(base))
	}
	return base, nil
}

func mib(n int) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
func kib(n int) string { return fmt.Sprintf("%d KiB", (n+1023)/1024) }
