//! Pictures in the terminal: image content from tools and image resources, drawn with
//! `ratatui-image` — kitty, iTerm2 or sixel graphics where the terminal has them, coloured
//! half-blocks everywhere else. The terminal is asked which it supports only when it names
//! itself as one that might (kitty, WezTerm, iTerm2, Ghostty, foot, Konsole, mlterm,
//! contour, XTerm) or `EVALDECK_IMAGES=query` says so: asking a terminal that never answers would
//! hold the first frame back. `EVALDECK_IMAGES=halfblocks` never asks.

use std::sync::OnceLock;
use std::time::Duration;

use base64::Engine;
use image::DynamicImage;
use ratatui::Frame;
use ratatui::layout::{Rect, Size};
use ratatui_image::picker::{Picker, ProtocolType};
use ratatui_image::protocol::Protocol;
use ratatui_image::{Image, Resize};
use serde_json::Value;

static PICKER: OnceLock<Picker> = OnceLock::new();

/// Whether the terminal says it is one that may draw graphics.
fn graphics_terminal() -> bool {
    let var = |k: &str| std::env::var(k).unwrap_or_default().to_ascii_lowercase();
    let (term, program) = (var("TERM"), var("TERM_PROGRAM"));
    [
        "kitty", "wezterm", "iterm", "ghostty", "foot", "mlterm", "contour",
    ]
    .iter()
    .any(|t| term.contains(t) || program.contains(t))
        || std::env::var_os("KITTY_WINDOW_ID").is_some()
        || std::env::var_os("KONSOLE_VERSION").is_some()
        // XTerm sets this itself, and answers the query (with sixel in VT340 mode).
        || std::env::var_os("XTERM_VERSION").is_some()
}

/// Chooses how pictures are drawn; call once the terminal is in raw mode, before the first
/// frame and before input is read (the terminal's answer comes on standard input).
pub fn detect() {
    let picker = match std::env::var("EVALDECK_IMAGES").as_deref() {
        Ok("halfblocks") => Picker::halfblocks(),
        Ok("query") => query(),
        _ if graphics_terminal() => query(),
        _ => Picker::halfblocks(),
    };
    let _ = PICKER.set(picker);
}

fn query() -> Picker {
    let options = ratatui_image::picker::cap_parser::QueryStdioOptions {
        timeout: Duration::from_millis(500),
        ..Default::default()
    };
    let mut picker =
        Picker::from_query_stdio_with_options(options).unwrap_or_else(|_| Picker::halfblocks());
    // ratatui-image draws kitty graphics through Unicode placeholders, which kitty reads
    // from 0.28 on; an older kitty shows a grid of boxes instead, so it gets half-blocks.
    if picker.protocol_type() == ProtocolType::Kitty
        && terminal_version()
            .as_deref()
            .and_then(kitty_version)
            .is_some_and(|v| v < (0, 28))
    {
        picker.set_protocol_type(ProtocolType::Halfblocks);
    }
    picker
}

/// The terminal's name and version as it reports them (XTVERSION, `CSI > q`), asked with
/// a device-attributes request behind it so a terminal that ignores the first still
/// answers; `None` when nothing comes within 300 ms.
fn terminal_version() -> Option<String> {
    use std::io::{Read, Write};
    use std::os::fd::AsFd;
    let mut out = std::io::stdout();
    out.write_all(b"\x1b[>q\x1b[c").ok()?;
    out.flush().ok()?;
    let stdin = std::io::stdin();
    let deadline = std::time::Instant::now() + Duration::from_millis(300);
    let mut got = Vec::new();
    let mut buf = [0u8; 256];
    // Until the device attributes' answer (`CSI ? … c`) ends what the terminal sends.
    while !answered(&got) {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        let ms = u16::try_from(left.as_millis()).unwrap_or(u16::MAX);
        let mut fds = [nix::poll::PollFd::new(
            stdin.as_fd(),
            nix::poll::PollFlags::POLLIN,
        )];
        if ms == 0 || nix::poll::poll(&mut fds, ms).ok()? == 0 {
            break;
        }
        let n = stdin.lock().read(&mut buf).ok()?;
        if n == 0 {
            break;
        }
        got.extend_from_slice(&buf[..n]);
    }
    let text = String::from_utf8_lossy(&got);
    // `DCS > | kitty(0.26.5) ST`
    let start = text.find(">|")? + 2;
    let end = text[start..].find('\x1b').map_or(text.len(), |e| start + e);
    Some(text[start..end].to_string())
}

/// Whether the bytes hold a device-attributes answer: `ESC [ ? … c`.
fn answered(got: &[u8]) -> bool {
    got.windows(3)
        .position(|w| w == b"\x1b[?")
        .is_some_and(|at| got[at..].contains(&b'c'))
}

/// kitty's version from its XTVERSION answer: `kitty(0.26.5)` → `(0, 26)`.
fn kitty_version(name: &str) -> Option<(u32, u32)> {
    let v = name.strip_prefix("kitty(")?.trim_end_matches(')');
    let mut parts = v.split('.').map(|p| p.parse::<u32>().ok());
    Some((parts.next()??, parts.next()??))
}

/// Half-blocks unless [`detect`] found better (tests draw half-blocks).
fn picker() -> &'static Picker {
    PICKER.get_or_init(Picker::halfblocks)
}

/// How pictures are drawn here: `kitty`, `iTerm2`, `sixel` or `half-blocks`.
pub fn drawn_with() -> &'static str {
    match picker().protocol_type() {
        ProtocolType::Kitty => "kitty",
        ProtocolType::Iterm2 => "iTerm2",
        ProtocolType::Sixel => "sixel",
        ProtocolType::Halfblocks => "half-blocks",
    }
}

/// A decoded picture, and its encoding for the last size it was drawn at.
pub struct Picture {
    pub mime: String,
    pub image: DynamicImage,
    drawn: Option<(Size, Protocol)>,
}

impl Picture {
    /// Decodes base64 image data (`data` of an image block, `blob` of a resource).
    pub fn decode(mime: &str, base64: &str) -> Result<Picture, String> {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(base64.trim())
            .map_err(|e| format!("not base64: {e}"))?;
        let image = image::load_from_memory(&bytes).map_err(|e| e.to_string())?;
        Ok(Picture {
            mime: mime.to_string(),
            image,
            drawn: None,
        })
    }

    /// `image/png 64×64`.
    pub fn describe(&self) -> String {
        format!(
            "{} {}×{}",
            self.mime,
            self.image.width(),
            self.image.height()
        )
    }

    /// The cells the picture takes within `max`: its proportions kept, a small picture
    /// enlarged to what there is room for (at most 16× its size), a large one shrunk.
    pub fn cells(&self, max: Size) -> Size {
        let font = picker().font_size();
        let (fw, fh) = (f64::from(font.width.max(1)), f64::from(font.height.max(1)));
        let (w, h) = (
            f64::from(self.image.width().max(1)),
            f64::from(self.image.height().max(1)),
        );
        let scale = (f64::from(max.width) * fw / w)
            .min(f64::from(max.height) * fh / h)
            .min(16.0);
        Size::new(
            ((w * scale / fw).floor() as u16).clamp(1, max.width.max(1)),
            ((h * scale / fh).floor() as u16).clamp(1, max.height.max(1)),
        )
    }

    /// Draws the picture at the top left of `area`, as large as [`Picture::cells`] says.
    pub fn render(&mut self, f: &mut Frame, area: Rect) {
        if area.width == 0 || area.height == 0 {
            return;
        }
        let cells = self.cells(area.as_size());
        if self.drawn.as_ref().is_none_or(|(s, _)| *s != cells) {
            let font = picker().font_size();
            let (pw, ph) = (
                u32::from(cells.width) * u32::from(font.width),
                u32::from(cells.height) * u32::from(font.height),
            );
            // Nearest neighbour keeps a small picture's pixels sharp when enlarged.
            let filter = if pw >= self.image.width() {
                image::imageops::FilterType::Nearest
            } else {
                image::imageops::FilterType::Triangle
            };
            let sized = self.image.resize(pw.max(1), ph.max(1), filter);
            match picker().new_protocol(sized, cells, Resize::Fit(None)) {
                Ok(p) => self.drawn = Some((cells, p)),
                Err(e) => {
                    tracing::warn!(error = %e, "cannot draw a picture");
                    return;
                }
            }
        }
        if let Some((_, p)) = &self.drawn {
            let size = p.size();
            let at = Rect {
                width: size.width.min(area.width),
                height: size.height.min(area.height),
                ..area
            };
            f.render_widget(Image::new(p), at);
        }
    }
}

/// The pictures in a tool result (image blocks, embedded image resources) or in resource
/// contents (image blobs), in order; those that do not decode are left out.
pub fn from_result(v: &Value) -> Vec<Picture> {
    let mut out = Vec::new();
    let mut take = |mime: Option<&str>, data: Option<&str>| {
        if let (Some(mime), Some(data)) = (mime, data)
            && mime.starts_with("image/")
        {
            match Picture::decode(mime, data) {
                Ok(p) => out.push(p),
                Err(e) => tracing::info!(error = %e, mime, "a picture that does not decode"),
            }
        }
    };
    let s = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    for block in v
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        match block.get("type").and_then(Value::as_str) {
            Some("image") => take(s(block, "mimeType").as_deref(), s(block, "data").as_deref()),
            Some("resource") => {
                let r = block.get("resource").cloned().unwrap_or_default();
                take(s(&r, "mimeType").as_deref(), s(&r, "blob").as_deref())
            }
            _ => {}
        }
    }
    for c in v
        .get("contents")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        take(s(c, "mimeType").as_deref(), s(c, "blob").as_deref());
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn kitty_versions_are_read_from_xtversion() {
        assert_eq!(super::kitty_version("kitty(0.26.5)"), Some((0, 26)));
        assert_eq!(super::kitty_version("kitty(0.39.1)"), Some((0, 39)));
        assert_eq!(super::kitty_version("XTerm(390)"), None);
        assert!(super::answered(b"\x1bP>|kitty(0.26.5)\x1b\\\x1b[?62;c"));
        assert!(!super::answered(b"\x1bP>|kitty(0.26.5)\x1b\\"));
    }
}
