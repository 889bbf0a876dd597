//! Pictures about the rules: the legend of a variant's pieces and the
//! movement diagram of one piece.

use std::fmt::Write;

use kibitz_rules::{Color, Piece, Powers, Square, Variant};

use crate::art::{self, FONT_FAMILY};
use crate::raster::{RenderError, Renderer};
use crate::scene::{escape, escape_upto};

const CELL: f32 = 144.0;
const IMAGE: f32 = 84.0;

fn header(width: f32, height: f32, background: &str) -> String {
    format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="{FONT_FAMILY}" font-weight="bold"><rect width="{width}" height="{height}" fill="{background}"/>"#
    )
}

fn place(art: art::Art, x: f32, y: f32, size: f32) -> String {
    format!(r#"<g transform="translate({x} {y}) scale({})">{}</g>"#, size / art.view(), art.body())
}

/// One cell of a legend.
struct Entry {
    art: art::Art,
    /// Powers the image does not show (Construction's Castling power, the
    /// compounds of both power variants).
    badges: Vec<art::Art>,
    /// A power's reserve badge, drawn beside the image (Construction).
    power: Option<art::Art>,
    name: String,
    letter: String,
    /// The letter of the promoted piece's old self (Olympic).
    promoted: Option<char>,
    /// Its price (Clash of the Armies).
    price: Option<String>,
    /// A mark drawn with it (Clash: the invulnerable's ring, the raised shield).
    mark: Option<Mark>,
}

/// Clash's marks on the board (CA6, CA8, CA9), as the legend explains them.
#[derive(Clone, Copy)]
enum Mark {
    /// The golden ring round an invulnerable piece, drawn over it.
    Ring,
    /// The shield behind a Shielderer whose shield is up, drawn under it.
    Shield,
}

impl Mark {
    fn body(self) -> &'static str {
        let doc = match self {
            Mark::Ring => include_str!("../assets/marks/invulnerable.svg"),
            Mark::Shield => include_str!("../assets/marks/shield.svg"),
        };
        let start = doc.find('>').map_or(0, |i| i + 1);
        let end = doc.rfind("</svg>").unwrap_or(doc.len());
        doc.get(start..end).unwrap_or("")
    }
}

impl Entry {
    fn new(variant: &Variant, piece: Piece, name: String, letter: String) -> Entry {
        let (art, badges) = art::for_piece(variant, piece);
        Entry { art, badges, power: None, name, letter, promoted: None, price: None, mark: None }
    }
}

/// Clash of the Armies' price of the piece with this letter, as the legend
/// writes it (`4.50 gold`; the Amazon is auctioned, CA14).
fn price(letter: char) -> Option<String> {
    let kind = kibitz_rules::army::PieceKind::from_letter(letter)?;
    Some(match kind.cost_quarters() {
        Some(q) => format!("{} gold", kibitz_rules::army::gold_text(q)),
        None => "auctioned".to_string(),
    })
}

/// The powers whose badges Power Absorption's legend explains, with their names.
const BADGE_KEY: [(Powers, &str); 6] = [
    (Powers::KING, "King"),
    (Powers::QUEEN, "Queen"),
    (Powers::ROOK, "Rook"),
    (Powers::BISHOP, "Bishop"),
    (Powers::KNIGHT, "Knight"),
    (Powers::PAWN, "Pawn"),
];

/// Pieces made of powers that a legend shows besides the named ones: FEN
/// group, name, powers, royal.
type Compound = (&'static str, &'static str, Powers, bool);

/// What the legend of a power variant adds: compounds and lines of text.
fn power_extras(variant: &Variant) -> (&'static [Compound], &'static [&'static str]) {
    if variant.split_powers {
        const TE: Powers = Powers::ROOK_MOVE.with(Powers::BISHOP_TAKE);
        const RG: Powers = Powers::ROOK.split().with(Powers::PAWN_TAKE);
        return (
            &[("(TE)", "Moves R, takes B", TE, false), ("(RG)", "Rook, takes as P", RG, false)],
            &[
                "Each power comes in two halves: a moving half (left of its disc filled, blue)",
                "moves onto empty squares only; a capturing half (right filled, red) only captures,",
                "and only capturing halves check and pin. Both halves are the full power.",
                "A turn: move a piece; drop a static piece on your first two ranks (S@d2); give one",
                "half from your reserve to one of your pieces but the King (T>e2, G>e2).",
                "Letters: Rook T moving, U capturing; Bishop D, E; Knight H, I; Pawn F, G.",
                "A move onto the last rank with a Pawn half removes its Pawn halves and adds a",
                "static piece or any one half, chosen with the move (e7e8u), to the reserve.",
            ],
        );
    }
    if variant.absorption {
        const BN: Powers = Powers::BISHOP.with(Powers::KNIGHT);
        const KQ: Powers = Powers::KING.with(Powers::QUEEN);
        const KR: Powers = Powers::KING.with(Powers::ROOK);
        const NP: Powers = Powers::KNIGHT.with(Powers::PAWN);
        (
            &[
                ("(BN)", "Bishop+Knight", BN, false),
                ("(KQ)", "King-Queen", KQ, true),
                ("(KR)", "King+Rook", KR, true),
                ("(NP)", "Knight+Pawn", NP, false),
            ],
            &[
                "A capturing piece absorbs its victim's powers, unless its",
                "player declines: a bishop that takes a knight becomes a",
                "Bishop+Knight. A badge, the small disc in a piece's corner,",
                "is a power the picture does not show: a King with a rook",
                "badge also moves as a rook. The badges:",
                "",
                "A King absorbs too; it may not slide across attacked squares.",
            ],
        )
    } else if variant.grants {
        const BP: Powers = Powers::BISHOP.with(Powers::PAWN);
        const RC: Powers = Powers::ROOK.with(Powers::CASTLE);
        (
            &[("(BP)", "Bishop+Pawn", BP, false), ("(RC)", "Rook+Castling", RC, false)],
            &[
                "A piece is a set of powers. A turn is one of: move a piece; drop a static",
                "piece on your first two ranks (S@d2); give a power from your reserve to one",
                "of your pieces but the King (R>e2). The reserve is beside the board, powers as discs.",
                "A static piece never moves or captures; it can be captured, and given powers.",
                "Pawn power: one step forward, two from the first rank; captures diagonally forward.",
                "Castling power: once, its holder swaps squares with its King, neither attacked.",
            ],
        )
    } else {
        (&[], &[])
    }
}

/// Every piece of the variant with its name (and, for Olympic, the promoted
/// pieces; for Power Absorption and Construction, the powers, a few
/// compounds and how pieces gain powers), as SVG.
pub fn legend_svg(renderer: &Renderer, variant: &'static Variant) -> String {
    let theme = renderer.theme();
    let mut entries: Vec<Entry> = variant
        .pieces
        .iter()
        .map(|pt| {
            let piece = Piece { color: Color::White, powers: pt.powers, royal: pt.royal, promoted: false };
            let mut entry = Entry::new(variant, piece, pt.name.to_string(), pt.letter.to_string());
            // Construction: a single power, with its reserve badge; the Queen
            // is the Rook and Bishop powers together.
            if variant.grants && !pt.royal && pt.powers.count() == 1 {
                entry.power = art::Art::badge(pt.powers);
                entry.name = match pt.name.split_once(' ') {
                    // CS1: "Rook: moves", "Rook: captures" fit a cell.
                    Some((kind, half)) if pt.powers.has_halves() => {
                        format!("{kind}: {}", if half.starts_with("moving") { "moves" } else { "captures" })
                    }
                    _ => format!("{} power", pt.name),
                };
            } else if variant.grants && pt.powers.joined() == Powers::QUEEN {
                entry.name = "Rook+Bishop".to_string();
            }
            entry
        })
        .collect();
    if let kibitz_rules::Promotion::Flip { mandatory, optional, .. } = variant.promotion {
        for pt in variant.pieces.iter().filter(|pt| pt.powers.intersects(mandatory.with(optional))) {
            let piece = Piece { color: Color::White, powers: pt.powers, royal: pt.royal, promoted: true };
            let mut entry = Entry::new(variant, piece, format!("Promoted {}", pt.name), format!("+{}", pt.letter));
            entry.badges.clear();
            entry.promoted = Some(pt.letter);
            entries.push(entry);
        }
    }
    let (compounds, mut notes) = power_extras(variant);
    for &(group, name, powers, royal) in compounds {
        let piece = Piece { color: Color::White, powers, royal, promoted: false };
        entries.push(Entry::new(variant, piece, name.to_string(), group.to_string()));
    }
    if variant.armies {
        for (e, pt) in entries.iter_mut().zip(variant.pieces) {
            e.price = price(pt.letter);
        }
        // The marks of CA6, CA8 and CA9: a Rogue after its quiet move, a
        // Shielderer with its shield up.
        for (letter, name, mark, shown) in
            [('V', "Invulnerable", Mark::Ring, ""), ('S', "Shield up", Mark::Shield, "D")]
        {
            if let Some(pt) = variant.pieces.iter().find(|pt| pt.letter == letter) {
                let piece = Piece { color: Color::White, powers: pt.powers, royal: pt.royal, promoted: false };
                let mut e = Entry::new(variant, piece, name.to_string(), shown.to_string());
                e.mark = Some(mark);
                entries.push(e);
            }
        }
        notes = &[
            "Under each name its price in gold; each player gets 40 gold",
            "before a round (/prices). The Amazon is auctioned.",
            "A golden ring: invulnerable, nothing can capture it (a Rogue",
            "after its quiet move, until its owner's next turn; while the",
            "shield is up, the Shielderer and its neighbours on rank and file).",
            "D raises the Shielderer's shield, once a game, as a whole turn;",
            "it stays up for the opponent's next three turns. The number on",
            "it counts the turns left.",
        ];
    }
    let columns = if variant.grants { 5 } else { entries.len().clamp(1, 4) };
    let rows = entries.len().div_ceil(columns);
    let title_h = 52.0;
    const LINE: f32 = 21.0;
    let notes_h = if notes.is_empty() { 0.0 } else { notes.len() as f32 * LINE + 12.0 };
    let (w, h) = (columns as f32 * CELL + 24.0, title_h + rows as f32 * CELL + 12.0 + notes_h);
    let mut s = header(w, h, theme.frame);
    let title = format!("{}: {}", variant.name, if variant.grants { "pieces and powers" } else { "pieces" });
    // A long name (Construction with split powers) in a smaller type.
    let title_size = if title.len() as f32 * 15.0 > w { 19 } else { 24 };
    let _ = write!(
        s,
        r#"<text x="{}" y="34" font-size="{title_size}" text-anchor="middle" fill="{}">{}</text>"#,
        w / 2.0,
        theme.caption_text,
        escape(&title),
    );
    for (i, e) in entries.iter().enumerate() {
        let (col, row) = ((i % columns) as f32, (i / columns) as f32);
        let (x, y) = (12.0 + col * CELL, title_h + row * CELL);
        let _ = write!(
            s,
            r#"<rect x="{}" y="{y}" width="{}" height="{}" rx="10" fill="{}"/>"#,
            x + 4.0,
            CELL - 8.0,
            CELL - 8.0,
            theme.light
        );
        // A power: its badge, then a piece holding it alone, smaller.
        let (image, ix) = match e.power {
            Some(badge) => {
                let bs = IMAGE * 0.5;
                s.push_str(&place(badge, x + 14.0, y + 8.0 + (IMAGE - bs) / 2.0 + 8.0, bs));
                (IMAGE * 0.86, x + CELL - IMAGE * 0.86 - 12.0)
            }
            // A compound's group, "(RC)", is wider than a letter: room for it.
            None if e.letter.starts_with('(') => (IMAGE, x + (CELL - IMAGE) / 2.0 + 10.0),
            None => (IMAGE, x + (CELL - IMAGE) / 2.0),
        };
        if let Some(Mark::Shield) = e.mark {
            let _ = write!(
                s,
                r#"<g transform="translate({ix} {}) scale({})">{}</g>"#,
                y + 8.0 + IMAGE - image,
                image / 45.0,
                Mark::Shield.body()
            );
            s.push_str(&shield_count(ix + image, y + 8.0 + IMAGE - image, image, 3, theme));
        }
        s.push_str(&place(e.art, ix, y + 8.0 + IMAGE - image, image));
        if let Some(Mark::Ring) = e.mark {
            let _ = write!(
                s,
                r#"<g transform="translate({ix} {}) scale({})">{}</g>"#,
                y + 8.0 + IMAGE - image,
                image / 45.0,
                Mark::Ring.body()
            );
        }
        for (j, badge) in e.badges.iter().enumerate() {
            let bs = IMAGE * 0.38;
            s.push_str(&place(*badge, ix + image - bs * (j as f32 + 1.0), y + 8.0 + IMAGE - bs, bs));
        }
        if let Some(letter) = e.promoted {
            let (cx, cy) = (x + (CELL + IMAGE) / 2.0 - 10.0, y + 20.0);
            let _ = write!(
                s,
                r#"<circle cx="{cx}" cy="{cy}" r="13" fill="{}"/><text x="{cx}" y="{}" font-size="15" text-anchor="middle" fill="{}">+{letter}</text>"#,
                theme.promoted,
                cy + 5.0,
                theme.badge_text
            );
        }
        let fs = if e.name.len() > 12 { 13 } else { 15 };
        // The FEN letter in the corner, the name below.
        let _ = write!(
            s,
            r#"<text x="{}" y="{}" font-size="14" fill="{}">{}</text>"#,
            x + 14.0,
            y + 24.0,
            theme.frame,
            escape(&e.letter)
        );
        // With a price below the name, both move up a little.
        let name_y = if e.price.is_some() { y + CELL - 32.0 } else { y + CELL - 22.0 };
        let _ = write!(
            s,
            r#"<text x="{}" y="{}" font-size="{fs}" text-anchor="middle" fill="{}">{}</text>"#,
            x + CELL / 2.0,
            name_y,
            theme.frame,
            escape(&e.name)
        );
        if let Some(price) = &e.price {
            let _ = write!(
                s,
                r#"<text x="{}" y="{}" font-size="13" text-anchor="middle" fill="{}" font-weight="normal">{}</text>"#,
                x + CELL / 2.0,
                name_y + 16.0,
                theme.frame,
                escape(price)
            );
        }
    }
    let top = title_h + rows as f32 * CELL + 4.0;
    // Power Absorption: the badges' key on the empty line the notes keep for it.
    if variant.absorption
        && let Some(row) = notes.iter().position(|l| l.is_empty())
    {
        let by = top + LINE * row as f32 + 2.0;
        let step = (w - 40.0) / BADGE_KEY.len() as f32;
        for (i, (power, name)) in BADGE_KEY.iter().enumerate() {
            let bx = 20.0 + step * i as f32;
            if let Some(badge) = art::Art::badge(*power) {
                s.push_str(&place(badge, bx, by, 18.0));
            }
            let _ = write!(
                s,
                r#"<text x="{}" y="{}" font-size="14" fill="{}">{name}</text>"#,
                bx + 22.0,
                by + 14.0,
                theme.caption_text
            );
        }
    }
    for (i, line) in notes.iter().enumerate() {
        let _ = write!(
            s,
            r#"<text x="20" y="{}" font-size="14" fill="{}">{}</text>"#,
            top + LINE * (i as f32 + 0.75),
            theme.caption_text,
            escape_upto(line, 120)
        );
    }
    s.push_str("</svg>");
    s
}

/// What a movement diagram of a power variant adds to the piece in the
/// centre: more pieces (a second pawn on the rank it double-steps from, the
/// King a Castling power swaps with), a swap arrow, and lines of text.
#[derive(Default)]
struct Extras {
    pieces: Vec<(Piece, Square)>,
    swap: Option<(Square, Square)>,
    notes: Vec<&'static str>,
}

fn diagram_extras(variant: &'static Variant, pt: &kibitz_rules::PieceType, centre: Square) -> Extras {
    let mut x = Extras::default();
    if !(variant.absorption || variant.grants) {
        return x;
    }
    if pt.powers.moving().contains(Powers::PAWN) && pt.powers.count() <= 2 && variant.double_step {
        // `Variant::movement` shows the double step only from its rank: a
        // second pawn (or moving Pawn half, CS3) stands there.
        if let Some(home) = Square::from_coords(variant.width - 2, variant.double_step_rank) {
            x.pieces.push((Piece::new(Color::White, pt.powers), home));
        }
    }
    if variant.absorption {
        x.notes.push("Captures absorb the victim's powers, unless declined.");
        if pt.royal {
            x.notes.push("With Rook or Bishop powers it slides too, but never");
            x.notes.push("across a square the enemy attacks.");
        }
        return x;
    }
    if pt.powers.has_halves() && pt.powers.count() == 1 {
        if pt.powers.capturing().is_empty() {
            x.notes.push("A moving half: onto empty squares only. It never");
            x.notes.push("captures, and gives no check (CS1, CS4).");
        } else {
            x.notes.push("A capturing half: captures only, never onto an empty");
            x.notes.push("square. It checks and pins (CS1, CS4).");
        }
        return x;
    }
    match pt.powers.joined() {
        _ if pt.royal => x.notes.push("The King is never given powers."),
        Powers::NONE => {
            x.notes.push("A static piece never moves or captures.");
            x.notes.push("It can be captured, and can be given powers (R>d4).");
        }
        Powers::CASTLE => {
            // The swap (C6): the King along the rank, an arrow both ways.
            if let Some(king) = Square::from_coords(centre.file() + 3, centre.rank()) {
                x.pieces
                    .push((Piece { color: Color::White, powers: Powers::KING, royal: true, promoted: false }, king));
                x.swap = Some((centre, king));
            }
            x.notes.push("Once: its holder swaps squares with its own King,");
            x.notes.push("if the King is not in check and the holder not attacked.");
        }
        Powers::PAWN => {
            x.notes.push("Two steps only from the first rank; no en passant.");
            x.notes.push("Any piece given the Pawn power moves so as well.");
        }
        Powers::QUEEN if variant.split_powers => x.notes.push("All four Rook and Bishop halves held together."),
        Powers::QUEEN => x.notes.push("The Rook and Bishop powers held together."),
        _ if variant.split_powers => x.notes.push("Both halves of the power held together."),
        _ => x.notes.push("Any piece given this power moves so as well."),
    }
    x
}

/// Where one piece moves and captures from the centre of an empty board, as
/// SVG; `None` if the variant has no such piece. Power Absorption's and
/// Construction's diagrams add what the centre cannot show (the double step,
/// the Castling power's swap) and a few words.
pub fn diagram_svg(renderer: &Renderer, variant: &'static Variant, piece: u8) -> Option<String> {
    let pt = variant.pieces.get(piece as usize)?;
    let centre = Square::from_coords((variant.width - 1) / 2, (variant.height - 1) / 2)?;
    let (mut moves, mut captures) = variant.movement(piece, centre)?;
    let extras = diagram_extras(variant, pt, centre);
    for &(p, at) in &extras.pieces {
        if p.powers == pt.powers
            && let Some((m, c)) = variant.movement(piece, at)
        {
            moves |= m;
            captures |= c;
        }
    }
    let title = match pt.powers {
        p if variant.grants && !pt.royal && p.count() == 1 && !p.has_halves() => format!("{} power", pt.name),
        _ => pt.name.to_string(),
    };
    let piece = Piece { color: Color::White, powers: pt.powers, royal: pt.royal, promoted: false };
    Some(sheet(renderer, variant, piece, &title, centre, (moves, captures), &extras))
}

/// The movement diagram of a piece made of several powers (Power
/// Absorption's and Construction's compounds: `(BN)`, `(KQ)`), titled
/// `title`, as SVG: where each of its powers moves and captures from the
/// centre. `None` unless `powers` holds two of the variant's named powers.
pub fn powers_diagram_svg(
    renderer: &Renderer,
    variant: &'static Variant,
    powers: Powers,
    royal: bool,
    title: &str,
) -> Option<String> {
    let centre = Square::from_coords((variant.width - 1) / 2, (variant.height - 1) / 2)?;
    let (mut moves, mut captures) = (kibitz_rules::Bitboard::EMPTY, kibitz_rules::Bitboard::EMPTY);
    let mut parts = 0;
    for (i, pt) in variant.pieces.iter().enumerate() {
        // Each named power the piece holds (the Queen is the Rook and Bishop).
        if pt.powers.is_empty() || pt.powers.count() != 1 || !powers.contains(pt.powers) || (pt.royal && !royal) {
            continue;
        }
        let (m, c) = variant.movement(i as u8, centre)?;
        moves |= m;
        captures |= c;
        parts += 1;
    }
    if parts < 2 || !(variant.absorption || variant.grants) {
        return None;
    }
    let mut extras = Extras::default();
    // The King off the piece's lines, so that its own moves stay unhidden.
    if powers.contains(Powers::CASTLE)
        && let Some(king) = Square::from_coords(centre.file() + 3, centre.rank() + 2)
    {
        extras.pieces.push((Piece { color: Color::White, powers: Powers::KING, royal: true, promoted: false }, king));
        extras.swap = Some((centre, king));
    }
    if variant.absorption {
        extras.notes.push("Captures absorb the victim's powers, unless declined.");
        if royal {
            extras.notes.push("Its slides never cross a square the enemy attacks.");
        }
    } else {
        extras.notes.push("Each power was given from the reserve.");
    }
    let piece = Piece { color: Color::White, powers, royal, promoted: false };
    Some(sheet(renderer, variant, piece, title, centre, (moves, captures), &extras))
}

/// A movement diagram: `piece` in the centre, its moves and captures
/// marked, the extras drawn and a key below.
fn sheet(
    renderer: &Renderer,
    variant: &'static Variant,
    piece: Piece,
    title: &str,
    centre: Square,
    (moves, captures): (kibitz_rules::Bitboard, kibitz_rules::Bitboard),
    extras: &Extras,
) -> String {
    let theme = renderer.theme();
    let kinds = [
        ((moves & captures).any(), "moves or captures", 0),
        ((moves & !captures).any(), "moves only", 1),
        ((captures & !moves).any(), "captures only", 2),
        (extras.swap.is_some(), "swaps with its King", 3),
    ];
    // Without a key (a static piece), the notes take its line.
    let keyless = !kinds.iter().any(|k| k.0);
    let sq = if variant.width > 5 { 56.0 } else { 80.0 };
    let m = 16.0;
    const LINE: f32 = 22.0;
    let (bw, bh) = (sq * variant.width as f32, sq * variant.height as f32);
    let notes_h = (extras.notes.len() as f32 - if keyless { 1.0 } else { 0.0 }).max(0.0) * LINE;
    let (w, h) = (bw + 2.0 * m, 52.0 + bh + 2.0 * m + 40.0 + notes_h);
    let mut s = header(w, h, theme.frame);
    // A long title (a compound's name) gets a smaller font to fit.
    let chars = (title.chars().count() + variant.name.chars().count() + 3) as f32;
    let fs = (22.0f32).min(((w - 16.0) / (chars * 0.6)).floor());
    let _ = write!(
        s,
        r#"<text x="{}" y="34" font-size="{fs}" text-anchor="middle" fill="{}">{} ({})</text>"#,
        w / 2.0,
        theme.caption_text,
        escape(title),
        escape(variant.name)
    );
    let top = 52.0 + m;
    let origin = |at: Square| (m + at.file() as f32 * sq, top + (variant.height - 1 - at.rank()) as f32 * sq);
    for r in 0..variant.height {
        for f in 0..variant.width {
            let Some(at) = Square::from_coords(f, r) else { continue };
            let (x, y) = (m + f as f32 * sq, top + (variant.height - 1 - r) as f32 * sq);
            let fill = if (f + r) % 2 == 0 { theme.dark } else { theme.light };
            let _ = write!(s, r#"<rect x="{x}" y="{y}" width="{sq}" height="{sq}" fill="{fill}"/>"#);
            let (cx, cy) = (x + sq / 2.0, y + sq / 2.0);
            match (moves.has(at), captures.has(at)) {
                (true, true) => {
                    let _ = write!(s, r#"<circle cx="{cx}" cy="{cy}" r="{}" fill="{}"/>"#, sq * 0.17, MOVE_CAPTURE);
                }
                (true, false) => {
                    let _ = write!(
                        s,
                        r#"<circle cx="{cx}" cy="{cy}" r="{}" fill="none" stroke="{}" stroke-width="{}"/>"#,
                        sq * 0.15,
                        MOVE_ONLY,
                        sq * 0.06
                    );
                }
                (false, true) => s.push_str(&cross(cx, cy, sq * 0.16, CAPTURE_ONLY, sq * 0.07)),
                (false, false) => {}
            }
        }
    }
    for (p, at) in [(piece, centre)].into_iter().chain(extras.pieces.iter().copied()) {
        let (x, y) = origin(at);
        let (art, badges) = art::for_piece(variant, p);
        s.push_str(&place(art, x, y, sq));
        let bs = (sq * 0.4).round();
        for (i, badge) in badges.iter().enumerate() {
            s.push_str(&place(*badge, x + sq - bs * (i as f32 + 1.0) - 1.0, y + sq - bs - 1.0, bs));
        }
    }
    if let Some((a, b)) = extras.swap {
        let ((ax, ay), (bx, by)) = (origin(a), origin(b));
        let half = sq / 2.0;
        s.push_str(&swap_arrow((ax + half, ay + half), (bx + half, by + half), sq, sq * 0.36, MOVE_ONLY));
    }
    // Key.
    let ky = top + bh + m + 22.0;
    let mut kx = m + 8.0;
    for (_, label, kind) in kinds.into_iter().filter(|k| k.0) {
        match kind {
            0 => {
                let _ = write!(s, r#"<circle cx="{kx}" cy="{ky}" r="7" fill="{MOVE_CAPTURE}"/>"#);
            }
            1 => {
                let _ = write!(
                    s,
                    r#"<circle cx="{kx}" cy="{ky}" r="6" fill="none" stroke="{MOVE_ONLY}" stroke-width="3"/>"#
                );
            }
            3 => s.push_str(&swap_arrow((kx - 10.0, ky), (kx + 10.0, ky), 28.0, 0.0, MOVE_ONLY)),
            _ => s.push_str(&cross(kx, ky, 7.0, CAPTURE_ONLY, 3.0)),
        }
        let _ = write!(
            s,
            r#"<text x="{}" y="{}" font-size="14" fill="{}">{label}</text>"#,
            kx + 14.0,
            ky + 5.0,
            theme.caption_text
        );
        kx += 14.0 + label.len() as f32 * 9.0 + 18.0;
    }
    for (i, line) in extras.notes.iter().enumerate() {
        let y = ky + 5.0 + LINE * (i as f32 + if keyless { 0.0 } else { 1.0 });
        let _ = write!(
            s,
            r#"<text x="{}" y="{y}" font-size="14" fill="{}">{}</text>"#,
            m,
            theme.caption_text,
            escape_upto(line, 120)
        );
    }
    s.push_str("</svg>");
    s
}

/// A double-headed arrow between two points, `inset` short of each, its
/// heads `unit`-sized.
fn swap_arrow(from: (f32, f32), to: (f32, f32), unit: f32, inset: f32, color: &str) -> String {
    let (dx, dy) = (to.0 - from.0, to.1 - from.1);
    let len = (dx * dx + dy * dy).sqrt().max(1.0);
    let (ux, uy) = (dx / len, dy / len);
    let (nx, ny) = (-uy, ux);
    let (head, wing) = (unit * 0.22, unit * 0.14);
    let a = (from.0 + ux * inset, from.1 + uy * inset);
    let b = (to.0 - ux * inset, to.1 - uy * inset);
    let mut out = format!(
        r#"<path d="M{:.1} {:.1}L{:.1} {:.1}" stroke="{color}" stroke-width="{:.1}" stroke-linecap="round"/>"#,
        a.0 + ux * head * 0.8,
        a.1 + uy * head * 0.8,
        b.0 - ux * head * 0.8,
        b.1 - uy * head * 0.8,
        unit * 0.08
    );
    for (tip, dir) in [(a, -1.0), (b, 1.0)] {
        let base = (tip.0 - dir * ux * head, tip.1 - dir * uy * head);
        let _ = write!(
            out,
            r#"<polygon points="{:.1},{:.1} {:.1},{:.1} {:.1},{:.1}" fill="{color}"/>"#,
            tip.0,
            tip.1,
            base.0 + nx * wing,
            base.1 + ny * wing,
            base.0 - nx * wing,
            base.1 - ny * wing
        );
    }
    out
}

/// The turns a raised shield has left (CA8), as a number on a disc in the
/// top right corner of the Shielderer's square at `(right, top)`, `sq` wide.
pub(crate) fn shield_count(right: f32, top: f32, sq: f32, turns: u8, theme: &crate::theme::Theme) -> String {
    let r = (sq * 0.15).max(6.0);
    let (cx, cy) = (right - r - sq * 0.03, top + r + sq * 0.03);
    format!(
        r#"<circle cx="{cx:.1}" cy="{cy:.1}" r="{r:.1}" fill="{SHIELD_BLUE}"/><text x="{cx:.1}" y="{:.1}" font-size="{:.1}" text-anchor="middle" fill="{}">{turns}</text>"#,
        cy + r * 0.45,
        r * 1.3,
        theme.badge_text
    )
}

/// The shield's colour, as its mark draws it.
const SHIELD_BLUE: &str = "#1d5fd6";

const MOVE_CAPTURE: &str = "#2e7d32";
const MOVE_ONLY: &str = "#1565c0";
const CAPTURE_ONLY: &str = "#c62828";

fn cross(cx: f32, cy: f32, r: f32, color: &str, width: f32) -> String {
    format!(
        r#"<path d="M{} {}L{} {}M{} {}L{} {}" stroke="{color}" stroke-width="{width}" stroke-linecap="round"/>"#,
        cx - r,
        cy - r,
        cx + r,
        cy + r,
        cx - r,
        cy + r,
        cx + r,
        cy - r
    )
}

impl Renderer {
    /// The legend of a variant's pieces, as PNG.
    pub fn legend_png(&self, variant: &'static Variant) -> Result<Vec<u8>, RenderError> {
        self.svg_png(&legend_svg(self, variant))
    }

    /// The movement diagram of one piece type, as PNG.
    pub fn diagram_png(&self, variant: &'static Variant, piece: u8) -> Option<Result<Vec<u8>, RenderError>> {
        diagram_svg(self, variant, piece).map(|svg| self.svg_png(&svg))
    }

    /// The movement diagram of a piece made of several powers, as PNG
    /// (see [`powers_diagram_svg`]).
    pub fn powers_diagram_png(
        &self,
        variant: &'static Variant,
        powers: Powers,
        royal: bool,
        title: &str,
    ) -> Option<Result<Vec<u8>, RenderError>> {
        powers_diagram_svg(self, variant, powers, royal, title).map(|svg| self.svg_png(&svg))
    }
}

/// One piece on a light tile, with the badges of the powers its image does
/// not show, as SVG of `size` pixels.
pub fn piece_svg(renderer: &Renderer, variant: &'static Variant, piece: Piece, size: u32) -> String {
    let theme = renderer.theme();
    let s = size.max(16) as f32;
    let mut out = header(s, s, theme.light);
    let (art, badges) = art::for_piece(variant, piece);
    out.push_str(&place(art, 0.0, 0.0, s));
    let bs = (s * 0.3).round();
    for (i, badge) in badges.iter().enumerate() {
        let x = s - bs * (i as f32 + 1.0) - s * 0.03;
        let _ = write!(
            out,
            r#"<g transform="translate({x} {}) scale({})">{}</g>"#,
            s - bs - s * 0.03,
            bs / badge.view(),
            badge.body()
        );
    }
    out.push_str("</svg>");
    out
}
