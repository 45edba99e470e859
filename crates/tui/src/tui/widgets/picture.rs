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
    Picker::from_query_stdio_with_options(options).unwrap_or_else(|_| Picker::halfblocks())
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
