#!/usr/bin/env python3
"""Generate the board artwork under render/assets/.

Reads:
  * Noto Sans Symbols 2 (Debian package fonts-noto-core,
    /usr/share/fonts/truetype/noto/NotoSansSymbols2-Regular.ttf, OFL-1.1):
    chess glyph outlines U+2654..265F and U+1FA4E..1FA53.
  * DejaVu Sans Bold (Debian package fonts-dejavu-core,
    /usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf): only to lay out the
    contact sheet and to build the text font subset.

Writes (relative to render/assets/):
  pieces/{w,b}-<name>.svg   45x45 piece images (chess glyphs of the font,
                            composed glyphs, and pieces drawn below)
  powers/<name>.svg         16x16 power badges
  marks/<name>.svg          45x45 overlay markers
  fonts/DejaVuSans-Bold-subset.ttf  (Latin, Greek, Cyrillic and a little punctuation)
  contact-sheet.png         review sheet (not used at run time)

Rerun from the repository root:
  apt-get install fonts-noto-core fonts-dejavu-core
  pip install fonttools resvg-py pillow
  python3 render/tools/make_pieces.py            # everything
  python3 render/tools/make_pieces.py --no-sheet # SVGs and font only
The output is deterministic; commit the regenerated files.
"""
import os
import re
import sys

from fontTools.pens.boundsPen import BoundsPen
from fontTools.pens.pointInsidePen import PointInsidePen
from fontTools.pens.recordingPen import RecordingPen
from fontTools.pens.basePen import BasePen
from fontTools.pens.transformPen import TransformPen
from fontTools.ttLib import TTFont

HERE = os.path.dirname(os.path.abspath(__file__))
ASSETS = os.path.normpath(os.path.join(HERE, '..', 'assets'))
SYMBOLS = '/usr/share/fonts/truetype/noto/NotoSansSymbols2-Regular.ttf'
TEXTFONT = '/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf'

# ---------------------------------------------------------------- palette
INK = '#1a1a1a'            # outlines
WHITE = dict(fill='#ffffff', ink=INK, detail=INK, name='w')
BLACK = dict(fill='#262626', ink=INK, detail='#ececec', name='b')
SW = 1.6                   # stroke width of drawn parts
CHESS_SCALE = 0.0499       # font units -> viewBox units for the chess glyphs
BOTTOM = 42.6              # baseline of the pieces in the 45x45 box


def fmt(v):
    s = '%.1f' % v
    s = s.rstrip('0').rstrip('.')
    if s.startswith('0.'):
        s = s[1:]
    elif s.startswith('-0.'):
        s = '-' + s[2:]
    return '0' if s in ('', '-0', '-') else s


class RoundPen(BasePen):
    """SVG path pen writing compact relative commands, coordinates rounded
    to 0.1 unit (absolute positions are rounded first, so nothing drifts)."""

    def __init__(self):
        super().__init__(None)
        self.d = []
        self.cur = (0, 0)
        self.start = (0, 0)

    def _rel(self, *pts):
        out = []
        for x, y in pts:
            q = (round(x * 10), round(y * 10))
            out.append('%s %s' % (fmt((q[0] - self.cur[0]) / 10),
                                  fmt((q[1] - self.cur[1]) / 10)))
        self.last = q
        return ' '.join(out)

    def _emit(self, cmd, *pts):
        text = self._rel(*pts)
        text = text.replace(' -', '-')
        if self.d and self.d[-1][:1] == cmd and cmd != 'm':
            cmd = '' if text[0] == '-' else ' '
        self.d.append(cmd + text)
        self.cur = self.last

    def _moveTo(self, pt):
        self._emit('m', pt)
        self.start = self.cur

    def _lineTo(self, pt):
        q = (round(pt[0] * 10), round(pt[1] * 10))
        if q[1] == self.cur[1]:
            self.d.append('h' + fmt((q[0] - self.cur[0]) / 10))
            self.cur = q
        elif q[0] == self.cur[0]:
            self.d.append('v' + fmt((q[1] - self.cur[1]) / 10))
            self.cur = q
        else:
            self._emit('l', pt)

    def _curveToOne(self, p1, p2, p3):
        self._emit('c', p1, p2, p3)

    def _qCurveToOne(self, p1, p2):
        self._emit('q', p1, p2)

    def _closePath(self):
        self.d.append('z')
        self.cur = self.start

    _endPath = _closePath

    def getCommands(self):
        return ''.join(self.d)


# ---------------------------------------------------------------- glyphs
class Glyphs:
    def __init__(self, path):
        self.font = TTFont(path)
        self.gs = self.font.getGlyphSet()
        self.cmap = self.font.getBestCmap()

    def contours(self, cp):
        rec = RecordingPen()
        self.gs[self.cmap[cp]].draw(rec)
        out, cur = [], []
        for op, args in rec.value:
            cur.append((op, args))
            if op in ('closePath', 'endPath'):
                out.append(cur)
                cur = []
        return out

    def bounds(self, cp):
        b = BoundsPen(self.gs)
        self.gs[self.cmap[cp]].draw(b)
        return b.bounds

    @staticmethod
    def _replay(contour, pen):
        for op, args in contour:
            getattr(pen, op)(*args)

    def depths(self, cp):
        """Nesting depth of every contour (0 = outermost)."""
        cs = self.contours(cp)
        res = []
        for i, c in enumerate(cs):
            pt = c[0][1][0]
            d = 0
            for j, o in enumerate(cs):
                if i == j:
                    continue
                pen = PointInsidePen(None, pt)
                self._replay(o, pen)
                if pen.getResult():
                    d += 1
            res.append(d)
        return cs, res

    def path(self, cp, xf, pick=None):
        """SVG path data of the glyph (or of the contours whose depth is
        accepted by pick), transformed by the affine xf (6-tuple)."""
        cs, ds = self.depths(cp)
        pen = RoundPen()
        tp = TransformPen(pen, xf)
        for c, d in zip(cs, ds):
            if pick is None or pick(d):
                self._replay(c, tp)
        return pen.getCommands()

    def place(self, cp, scale=CHESS_SCALE, cx=22.5, bottom=BOTTOM, height=None):
        x0, y0, x1, y1 = self.bounds(cp)
        if height is not None:
            scale = height / (y1 - y0)
        tx = cx - scale * (x0 + x1) / 2
        ty = bottom + scale * y0
        return (scale, 0, 0, -scale, tx, ty)


G = None

WHITE_CP = dict(king=0x2654, queen=0x2655, rook=0x2656, bishop=0x2657,
                knight=0x2658, pawn=0x2659)
BLACK_CP = {k: v + 6 for k, v in WHITE_CP.items()}


def glyph_piece(name, col, xf=None, wcp=None, bcp=None, **kw):
    """Chess glyph as an SVG fragment in the given colour scheme."""
    wcp = wcp or WHITE_CP[name]
    bcp = bcp or BLACK_CP[name]
    if col['name'] == 'w':
        xf = xf or G.place(wcp, **kw)
        body = G.path(wcp, xf, lambda d: d == 0)
        return ('<path d="%s" fill="%s"/><path d="%s" fill="%s"/>'
                % (body, col['fill'], G.path(wcp, xf), col['ink']))
    xf = xf or G.place(bcp, **kw)
    holes = G.path(bcp, xf, lambda d: d == 1)
    out = ''
    if holes:
        out += '<path d="%s" fill="%s"/>' % (holes, col['detail'])
    out += '<path d="%s" fill="%s"/>' % (G.path(bcp, xf), col['fill'])
    return out


def svg(body, box=45):
    return ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d">%s</svg>\n'
            % (box, box, body))


def stroke_attrs(col, w=SW):
    return ('stroke="%s" stroke-width="%s" stroke-linejoin="round" '
            'stroke-linecap="round"' % (col['ink'], fmt(w)))


# ---------------------------------------------------------------- olympic
DISC = dict(silver=dict(w='#d3d9e0', b='#8e98a3'),
            gold=dict(w='#f7c948', b='#c99a17'))


def checker(cy, col, tint, rx=17.5, ry=4.6, h=4.2, cx=22.5):
    """A flat disc whose top face is centred at (cx, cy)."""
    a = stroke_attrs(col)
    inner = ('<ellipse cx="%s" cy="%s" rx="%s" ry="%s" fill="none" stroke="%s" '
             'stroke-width=".8" opacity=".55"/>'
             % (fmt(cx), fmt(cy), fmt(rx * .62), fmt(ry * .62), INK))
    return ('<path d="M%s %sv%sa%s %s 0 0 0 %s 0v-%sz" fill="%s" %s/>'
            '<ellipse cx="%s" cy="%s" rx="%s" ry="%s" fill="%s" %s/>%s'
            % (fmt(cx - rx), fmt(cy), fmt(h), fmt(rx), fmt(ry), fmt(2 * rx),
               fmt(h), tint, a, fmt(cx), fmt(cy), fmt(rx), fmt(ry), tint, a,
               inner))


def pedestal_pawn(n, col, kind):
    tint = DISC[kind][col['name']]
    h, ry = 4.2, 4.6
    cy = BOTTOM - h - ry
    out = ''
    for i in range(n):
        out += checker(cy - i * h, col, tint, ry=ry, h=h)
    top = cy - (n - 1) * h
    height = 29.0 if n == 1 else 27.0
    out += glyph_piece('pawn', col, bottom=top + 1.6, height=height)
    return out


# ---------------------------------------------------------------- registry
PIECES = {}   # name -> function(colour scheme) -> SVG body


def piece(name):
    def deco(fn):
        PIECES[name] = fn
        return fn
    return deco


for _n in WHITE_CP:
    PIECES[_n] = (lambda n: lambda col: glyph_piece(n, col))(_n)
PIECES['silver'] = lambda col: pedestal_pawn(1, col, 'silver')
PIECES['gold'] = lambda col: pedestal_pawn(2, col, 'gold')


def tpl(text):
    """Piece drawn from an SVG template.  Placeholders: {f} body fill,
    {s} outline stroke attributes, {S} the same for a part lying over
    another part (black pieces get a light separating line), {d} detail colour, {t} thin detail
    stroke attributes, {l} light colour, {i} ink, {base} the common plinth."""
    def fn(col):
        text2 = text
        if col['name'] == 'b':
            # parts lying over other parts: dark rim with a light line in it
            text2 = re.sub(r'<[^<>]*\{S\}[^<>]*/>', lambda m: (
                m.group(0).replace('{S}', stroke_attrs(col, 3.4)) +
                m.group(0).replace('{S}', stroke_attrs(dict(ink=col['detail']), 1))),
                text)
        keys = dict(S=stroke_attrs(col), f=col['fill'], s=stroke_attrs(col), d=col['detail'],
                    t=stroke_attrs(dict(ink=col['detail']), 1.1),
                    l='#ffffff' if col['name'] == 'w' else col['detail'],
                    i=INK)
        keys['base'] = BASE.format(**keys)
        return text2.format(**keys)
    return fn


BASE = '<path d="M8.5 42.6h28l-1.4-4.2H9.9z" fill="{f}" {s}/>'


@piece('omnipawn')
def omnipawn(col):
    import math
    pts = []
    for k in range(10):
        r = 5.6 if k % 2 == 0 else 2.4
        a = math.pi * k / 5 - math.pi / 2
        pts.append('%s,%s' % (fmt(22.5 + r * math.cos(a)), fmt(34.2 + r * math.sin(a))))
    return (glyph_piece('pawn', col) +
            '<polygon points="%s" fill="%s" stroke="%s" stroke-width=".6" '
            'stroke-linejoin="round"/>' % (' '.join(pts), col['detail'], col['detail']))


PIECES['rabbit'] = tpl(
    '<path d="M12 38.6C12 31 33 31 33 38.6z" fill="{f}" {s}/>{base}'
    '<ellipse cx="17.3" cy="13" rx="3.9" ry="10.2" transform="rotate(-13 17.3 13)" fill="{f}" {s}/>'
    '<ellipse cx="27.7" cy="13" rx="3.9" ry="10.2" transform="rotate(13 27.7 13)" fill="{f}" {s}/>'
    '<path d="M17.6 20V10M27.4 20V10" transform="rotate(0)" {t}/>'
    '<ellipse cx="22.5" cy="27.3" rx="10.8" ry="9.2" fill="{f}" {S}/>'
    '<circle cx="18.4" cy="25.2" r="1.5" fill="{d}"/><circle cx="26.6" cy="25.2" r="1.5" fill="{d}"/>'
    '<path d="M21.2 29.2h2.6l-1.3 1.4z" fill="{d}" stroke="{d}" stroke-width=".8" stroke-linejoin="round"/>'
    '<path d="M22.5 30.6v1.6m0 0q-1.6 1.6-3 .6m3-.6q1.6 1.6 3 .6M13.5 29.5l4.5.5m-4.2 2.2l4.4-1M31.5 29.5l-4.5.5m4.2 2.2l-4.4-1" {t}/>')

PIECES['elephant'] = tpl(
    '{base}'
    '<path d="M16.5 13C8.5 8.5 3.2 14 4.2 22c.8 6.5 7 9.5 12.8 6.5z" fill="{f}" {s}/>'
    '<path d="M28.5 13C36.5 8.5 41.8 14 40.8 22c-.8 6.5-7 9.5-12.8 6.5z" fill="{f}" {s}/>'
    '<path d="M14.5 18c0-8.5 16-8.5 16 0c0 5-2.8 7.5-4.3 10l-.5 6.8q.4 2.4 2.9 1.6l1.2-.4l.9 2.4q-3.4 2.4-6.3 1.3q-3-1.2-3.1-4.6l-1.1-7C17.3 25.6 14.5 23 14.5 18z" fill="{f}" {S}/>'
    '<path d="M20.3 27.3q-2.8 4-5.4 3.2q2.2-1.1 3.4-4.2zM24.7 27.3q2.8 4 5.4 3.2q-2.2-1.1-3.4-4.2z" fill="{l}" {s}/>'
    '<circle cx="18.8" cy="18.5" r="1.3" fill="{d}"/><circle cx="26.2" cy="18.5" r="1.3" fill="{d}"/>'
    '<path d="M21.6 30.5h2.6M21.9 33.3h2.5M8.5 16.5q-1.5 4 .5 8" {t}/>'
    '<path d="M36.5 16.5q1.5 4-.5 8" {t}/>')

PIECES['hawk'] = tpl(
    '{base}'
    '<path d="M12.8 38.4C12.6 31 14.5 26.5 19 22.5L18.4 18.2L14.2 17.8Q13 19.6 11 19.8Q9.4 14.5 12.4 11.6Q15.5 8.5 20.5 8.5C25 5.6 31 6 33.5 10.2L36 12.6L33.8 13.8L36 16.4L33.2 18.4C36.2 24 35.8 32 33.6 38.4z" fill="{f}" {s}/>'
    '<path d="M19.6 9Q17.6 13.5 18.4 18.2M18.4 18.2L21.2 16.9" {t}/>'
    '<circle cx="24" cy="14.4" r="1.8" fill="{d}"/>'
    '<path d="M20.4 11.6L28.6 11.8" stroke="{d}" stroke-width="1.7" stroke-linecap="round"/>'
    '<path d="M32.8 20C28 23.5 25.4 29 25 37.8M27.8 28.5l3.4 1.8M26.2 33l4 1.6" {t}/>')

PIECES['kite'] = tpl(
    '<path d="M22.5 31q-3 3.5 1 5.5t0 6" fill="none" {s}/>'
    '<path d="M20.8 34.6l-3.2-1.6l.4 3.6zM24.6 38.4l3.2-1.4l-.2 3.6z" fill="{f}" {s}/>'
    '<path d="M22.5 2.8L34.8 13.6L22.5 31.5L10.2 13.6z" fill="{f}" {s}/>'
    '<path d="M22.5 2.8L34.8 13.6H22.5zM22.5 31.5L10.2 13.6H22.5z" fill="{d}" opacity=".45"/>'
    '<path d="M22.5 4.5V29.5M12 13.6H33" {t}/>')

PIECES['war-machine'] = tpl(
    '<path d="M7.8 41H30.5l1.6-4.3L23 29.5L10 34z" fill="{f}" {s}/>'
    '<g transform="translate(21.5 25.5) rotate(-30)">'
    '<circle cx="-13.3" cy="0" r="2.1" fill="{f}" {s}/>'
    '<path d="M-11.5-4.3H10v-1.4h3.8v11.4H10v-1.4H-11.5z" fill="{f}" {S}/>'
    '<path d="M-3-4.3v8.6M3.5-4.3v8.6" {t}/></g>'
    '<circle cx="18" cy="33.6" r="7.8" fill="{f}" {S}/>'
    '<path d="M18 26.8v13.6M11.2 33.6h13.6M13.2 28.8l9.6 9.6M13.2 38.4l9.6-9.6" {t}/>'
    '<circle cx="18" cy="33.6" r="2.1" fill="{d}"/>'
    '<circle cx="32.6" cy="39.6" r="2.9" fill="{f}" {S}/><circle cx="38.4" cy="39.6" r="2.9" fill="{f}" {S}/>'
    '<circle cx="35.5" cy="34.8" r="2.9" fill="{f}" {S}/>')

PIECES['jester'] = tpl(
    '{base}'
    '<path d="M9.5 38.6L12 34.2L14.6 37L17 33.6L19.8 36.8L22.5 33.4L25.2 36.8L28 33.6L30.4 37L33 34.2L35.5 38.6z" fill="{f}" {s}/>'
    '<ellipse cx="22.5" cy="28.2" rx="7.6" ry="6.4" fill="{f}" {S}/>'
    '<circle cx="19.6" cy="27" r="1.1" fill="{d}"/><circle cx="25.4" cy="27" r="1.1" fill="{d}"/>'
    '<path d="M19 30.6q3.5 2.8 7 0" {t}/>'
    '<path d="M13.4 21.6C10 18 7.5 16 5.2 17.6C6.5 11.5 11 9 16 12.8C17 7.5 20 5 22.5 3.8C25 5 28 7.5 29 12.8C34 9 38.5 11.5 39.8 17.6C37.5 16 35 18 31.6 21.6z" fill="{f}" {s}/>'
    '<path d="M16 12.8Q18.5 16 19 21.6M29 12.8Q26.5 16 26 21.6" {t}/>'
    '<rect x="12.8" y="20.4" width="19.4" height="3.6" rx="1.4" fill="{f}" {S}/>'
    '<circle cx="5.2" cy="18.4" r="2.4" fill="{f}" {S}/><circle cx="39.8" cy="18.4" r="2.4" fill="{f}" {S}/>'
    '<circle cx="22.5" cy="3.9" r="2.4" fill="{f}" {S}/>')

PIECES['rogue'] = tpl(
    '{base}'
    '<path d="M22.5 3.2C15 4.8 11.6 12 12 20C12.4 26 10.4 33 9.2 38.6H35.8C34.6 33 32.6 26 33 20C33.4 12 30 4.8 22.5 3.2z" fill="{f}" {s}/>'
    '<path d="M22.5 10C17.6 10 16 15 16.5 20C17 24 20 26 22.5 26C25 26 28 24 28.5 20C29 15 27.4 10 22.5 10z" fill="{i}" {S}/>'
    '<path d="M18.6 18.6l3 .8M26.4 18.6l-3 .8" stroke="{l}" stroke-width="1.3" stroke-linecap="round"/>'
    '<path d="M17 27.5l-2 9M28 27.5l2 9" {t}/>'
    '<g transform="translate(23.5 32.5) rotate(-38)">'
    '<path d="M-2.5-1.5H9L12.8 0L9 1.5H-2.5z" fill="{l}" {s}/>'
    '<rect x="-9.2" y="-1.3" width="5" height="2.6" rx=".6" fill="{f}" {S}/>'
    '<circle cx="-10.3" cy="0" r="1.5" fill="{f}" {S}/>'
    '<rect x="-4.2" y="-3.8" width="1.9" height="7.6" rx=".6" fill="{f}" {S}/></g>')

PIECES['shielderer'] = tpl(
    '{base}'
    '<path d="M9.5 38.6C9.5 28.5 14.5 23 22.5 23C30.5 23 35.5 28.5 35.5 38.6z" fill="{f}" {s}/>'
    '<path d="M15.6 19.5C15.6 6.5 29.4 6.5 29.4 19.5V22H15.6z" fill="{f}" {S}/>'
    '<circle cx="22.5" cy="8.2" r="1.9" fill="{f}" {s}/>'
    '<path d="M17.8 15.6h9.4M22.5 17.8v3.8" {t}/>'
    '<path d="M13.4 21.8H31.6V29C31.6 35 27.5 38.8 22.5 41.4C17.5 38.8 13.4 35 13.4 29z" fill="{f}" {S}/>'
    '<path d="M22.5 24.6V38.2M16.6 29.4H28.4" stroke="{d}" stroke-width="2.4" stroke-linecap="round"/>')


def mirrored(start, segs, cx=22.5):
    """Closed path symmetric about x = cx.  start is a point on the axis;
    segs are ('L', p) / ('Q', c, p) / ('C', c1, c2, p) for the left half,
    ending on the axis.  The right half is the mirror image, reversed."""
    pts = [start]
    d = 'M%s %s' % (fmt(start[0]), fmt(start[1]))
    for sg in segs:
        d += sg[0] + ' '.join('%s %s' % (fmt(x), fmt(y)) for x, y in sg[1:])
        pts.append(sg[-1])
    m = lambda q: (2 * cx - q[0], q[1])
    for i in range(len(segs) - 1, -1, -1):
        sg = segs[i]
        ctrl = [m(q) for q in sg[1:-1]][::-1]
        end = m(pts[i])
        d += sg[0] + ' '.join('%s %s' % (fmt(x), fmt(y)) for x, y in ctrl + [end])
    return d + 'z'


PHOENIX = mirrored((22.5, 3.2), [
    ('C', (21, 5), (19.6, 6.6), (20, 8.8)),       # crest
    ('C', (18.8, 10.4), (19, 12.8), (20.3, 14.6)),  # head
    ('L', (19.8, 17.2)),
    ('C', (15, 14.6), (9, 10), (3.4, 4.6)),        # upper edge of the wing
    ('Q', (4.2, 10), (7.4, 12.6)),                 # feather tips
    ('Q', (5, 15), (9.2, 17.8)),
    ('Q', (7.6, 21), (12.6, 22.2)),
    ('Q', (12, 25.2), (17.4, 24.6)),
    ('C', (17.4, 28), (14, 32), (11.8, 36.4)),      # tail flames
    ('Q', (15.6, 35.6), (17.2, 33.4)),
    ('Q', (16.8, 38.6), (19, 42.4)),
    ('Q', (20.8, 39.6), (22.5, 36.4)),
])

PIECES['phoenix'] = tpl(
    '<path d="%s" fill="{f}" {s}/>' % PHOENIX +
    '<path d="M21.3 12.2L22.5 14.6L23.7 12.2z" fill="{d}" stroke="{d}" stroke-width=".6" stroke-linejoin="round"/>'
    '<circle cx="21" cy="10.6" r=".9" fill="{d}"/><circle cx="24" cy="10.6" r=".9" fill="{d}"/>'
    '<path d="M18.4 19.8L9 9.6M17.4 22.2L11.4 17.6M27.6 22.2L33.6 17.6M26.6 19.8L36 9.6" {t}/>'
    '<path d="M22.5 33.4C20.4 30.6 19.8 27.6 22.5 22.6C25.2 27.6 24.6 30.6 22.5 33.4z" fill="{d}"/>')

PIECES['waffle'] = lambda col: waffle(col)


def waffle(col):
    import math
    cx, cy, r = 22.5, 23.8, 18.4
    ri = r - 3.0
    out = '<circle cx="%s" cy="%s" r="%s" fill="%s" %s/>' % (
        fmt(cx), fmt(cy), fmt(r), col['fill'], stroke_attrs(col))
    out += '<circle cx="%s" cy="%s" r="%s" fill="none" %s/>' % (
        fmt(cx), fmt(cy), fmt(ri), stroke_attrs(dict(ink=col['detail']), 1.1))
    d = ''
    for k in (-2, -1, 0, 1, 2):
        o = k * 5.6 + 2.8 * (1 if k >= 0 else -1) - 2.8 * (k >= 0) + 2.8 * (k < 0)
        o = (k - 0.5) * 5.6 if k > 0 else (k + 0.5) * 5.6 if k < 0 else None
        if o is None:
            continue
        h = math.sqrt(ri * ri - o * o) - 0.6
        d += 'M%s %sV%s' % (fmt(cx + o), fmt(cy - h), fmt(cy + h))
        d += 'M%s %sH%s' % (fmt(cx - h), fmt(cy + o), fmt(cx + h))
    out += '<path d="%s" %s/>' % (d, stroke_attrs(dict(ink=col['detail']), 2.2))
    return out


@piece('stone')
def stone(col):
    cx, cy, rx, ry, h = 22.5, 26.4, 18.6, 8.2, 7.0
    a = stroke_attrs(col)
    return ('<path d="M%s %sv%sa%s %s 0 0 0 %s 0v-%sz" fill="%s" %s/>'
            '<ellipse cx="%s" cy="%s" rx="%s" ry="%s" fill="%s" %s/>'
            '<ellipse cx="%s" cy="%s" rx="%s" ry="%s" fill="none" %s/>'
            % (fmt(cx - rx), fmt(cy), fmt(h), fmt(rx), fmt(ry), fmt(2 * rx),
               fmt(h), col['fill'], a, fmt(cx), fmt(cy), fmt(rx), fmt(ry),
               col['fill'], stroke_attrs(col) if col['name'] == 'w' else
               stroke_attrs(dict(ink=col['detail']), 1.1),
               fmt(cx), fmt(cy), fmt(rx * .62), fmt(ry * .62),
               stroke_attrs(dict(ink=col['detail']), 1.1)))


# the knight-queen glyph of the font
FAIRY = dict(amazon=(0x1FA4E, 0x1FA51))
for _n, (_w, _b) in FAIRY.items():
    PIECES[_n] = (lambda w, b: lambda col: glyph_piece(
        None, col, wcp=w, bcp=b, height=40.0))(_w, _b)


def knight_with(name, col, back_h=32.0, back_cx=28.4, front_h=30.0, front_cx=18.0):
    """A knight standing in front of another chess piece."""
    out = glyph_piece(name, col, height=back_h, cx=back_cx)
    xf = G.place(WHITE_CP['knight'] if col['name'] == 'w' else BLACK_CP['knight'],
                 height=front_h, cx=front_cx)
    cp = WHITE_CP['knight'] if col['name'] == 'w' else BLACK_CP['knight']
    ring = col['ink'] if col['name'] == 'w' else col['detail']
    out += '<path d="%s" fill="%s" %s/>' % (
        G.path(cp, xf, lambda d: d == 0), col['fill'],
        stroke_attrs(dict(ink=ring), 1.3 if col['name'] == 'b' else 0.6))
    return out + glyph_piece('knight', col, xf=xf)


PIECES['chancellor'] = lambda col: knight_with('rook', col)
PIECES['archbishop'] = lambda col: knight_with('bishop', col)
# A knight in front of a king, like its two cousins above: a crown behind the
# knight's head alone did not tell it from a Knight at board size.
PIECES['general'] = lambda col: knight_with('king', col)

# ---- drawn pieces (insert above) ----



# ---------------------------------------------------------------- powers
def power_badges():
    """16x16 icons, dark on transparent, for pieces made of powers."""
    a = 'stroke="%s" stroke-width="1.4" stroke-linejoin="round" stroke-linecap="round"' % INK
    arrow = lambda x, y, dx, dy: (
        # shaft from the centre to (x, y) with a head pointing along (dx, dy)
        'M8 8L%s %sM%s %sL%s %sL%s %s' % (
            fmt(x), fmt(y), fmt(x - 2.6 * dx + 2.6 * dy * .75), fmt(y - 2.6 * dy - 2.6 * dx * .75),
            fmt(x), fmt(y), fmt(x - 2.6 * dx - 2.6 * dy * .75), fmt(y - 2.6 * dy + 2.6 * dx * .75)))
    b = {}
    b['king'] = ('<path d="M2.6 12.2L1.8 5.2L5.2 8L8 3.2L10.8 8L14.2 5.2L13.4 12.2z" fill="%s" %s/>'
                 '<path d="M2.8 14.2H13.2" fill="none" %s/>' % (INK, a, a))
    b['rook'] = '<path d="%s" fill="none" %s/>' % (
        arrow(8, 1.6, 0, -1) + arrow(8, 14.4, 0, 1) + arrow(1.6, 8, -1, 0) + arrow(14.4, 8, 1, 0), a)
    r = 6.4 / 1.4142
    b['bishop'] = '<path d="%s" fill="none" %s/>' % (
        ''.join(arrow(8 + sx * 5.6, 8 + sy * 5.6, sx / 1.4142, sy / 1.4142)
                for sx in (-1, 1) for sy in (-1, 1)), a)
    # Queen: the Rook and Bishop powers together, on a King (Power
    # Absorption's King-Queen) where one badge reads better than two.
    for name in ('knight', 'pawn', 'queen'):
        cp = BLACK_CP[name]
        xf = G.place(cp, height=13.2, cx=8, bottom=14.8)
        b[name] = '<path d="%s" fill="%s"/>' % (G.path(cp, xf, lambda d: d == 0), INK)
    # Castling (Construction's C6): a tower over a two-way arrow, the swap
    # with the King; kept inside the disc the badge is drawn on.
    b['castling'] = (
        '<path d="M4.6 10.2V6H4V1.8H5.8V3.2H7.1V1.8H8.9V3.2H10.2V1.8H12V6H11.4V10.2z" fill="%s" %s/>'
        '<path d="M2.6 12.8H13.4M4.2 11.2L2.6 12.8L4.2 14.4M11.8 11.2L13.4 12.8L11.8 14.4" '
        'fill="none" %s/>' % (INK, 'stroke="%s" stroke-width=".8" stroke-linejoin="round"' % INK, a))
    return b


# ---------------------------------------------------------------- marks
MARKS = {
    'promoted':
        '<circle cx="38.2" cy="6.8" r="5.6" fill="#d7263d" stroke="#ffffff" stroke-width="1.2"/>'
        '<path d="M38.2 3.9V9.7M35.3 6.8H41.1" stroke="#ffffff" stroke-width="1.9" stroke-linecap="round"/>',
    'invulnerable':
        '<circle cx="22.5" cy="22.5" r="20.6" fill="none" stroke="#e0a800" stroke-width="2.2" opacity=".85"/>'
        '<circle cx="22.5" cy="22.5" r="19" fill="none" stroke="#ffe27a" stroke-width=".9" opacity=".8"/>',
    'shield':
        '<path d="M22.5 1.6L40.6 6.6V20.6C40.6 31.6 32.6 39.4 22.5 43.6C12.4 39.4 4.4 31.6 4.4 20.6V6.6z" '
        'fill="#3b82f6" fill-opacity=".16" stroke="#1d5fd6" stroke-width="2" stroke-opacity=".75" '
        'stroke-linejoin="round"/>',
}


# ---------------------------------------------------------------- font
# Latin, Greek and Cyrillic, so that most players' names can be drawn; the
# renderer's `font_has` must list the same ranges.
FONT_UNICODES = ('U+0020-007E,U+00A0-017F,U+0370-03FF,U+0400-04FF,U+2013-2014,'
                 'U+2018-201D,U+2022,U+2026,U+2190-2193,U+2212')


def make_font(path):
    """Printable ASCII plus a few punctuation marks, no hinting."""
    from fontTools import subset
    subset.main([TEXTFONT, '--unicodes=' + FONT_UNICODES, '--layout-features=kern',
                 '--no-hinting', '--desubroutinize', '--name-IDs=*',
                 '--name-legacy', '--output-file=' + path])


# ---------------------------------------------------------------- main
def write(rel, text):
    path = os.path.join(ASSETS, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        f.write(text)


def contact_sheet(path):
    import io
    import resvg_py
    from PIL import Image, ImageDraw, ImageFont
    cell, pad, label = 64, 6, 16
    names = list(PIECES)
    per_row = 6
    colw = 4 * cell + 3 * 2 + 2 * pad
    rowh = cell + label + 2 * pad
    rows = (len(names) + per_row - 1) // per_row
    sheet = Image.new('RGB', (per_row * colw, rows * rowh), '#ffffff')
    draw = ImageDraw.Draw(sheet)
    font = ImageFont.truetype(TEXTFONT, 12)
    light, dark = (240, 217, 181), (181, 136, 99)

    def png(text, size):
        data = resvg_py.svg_to_bytes(svg_string=text, width=size, height=size)
        return Image.open(io.BytesIO(bytes(data))).convert('RGBA')

    for i, n in enumerate(names):
        x0 = (i % per_row) * colw + pad
        y0 = (i // per_row) * rowh + pad
        k = 0
        for c in 'wb':
            img = png(open(os.path.join(ASSETS, 'pieces', '%s-%s.svg' % (c, n))).read(), cell)
            for sq in (light, dark):
                x = x0 + k * (cell + 2)
                sheet.paste(sq, (x, y0, x + cell, y0 + cell))
                sheet.paste(img, (x, y0), img)
                k += 1
        draw.text((x0 + (colw - 2 * pad) // 2, y0 + cell + 2), n, fill='#000',
                  font=font, anchor='ma')
    # power badges on a round light badge, and the marks over a queen
    y0 = rows * rowh + pad
    extra = Image.new('RGB', (sheet.width, y0 + rowh), '#ffffff')
    extra.paste(sheet, (0, 0))
    sheet, draw = extra, ImageDraw.Draw(extra)
    x = pad
    for f in sorted(os.listdir(os.path.join(ASSETS, 'powers'))):
        if not f.endswith('.svg'):
            continue
        draw.ellipse((x + 8, y0 + 8, x + cell - 8, y0 + cell - 8), fill='#f4f1e8',
                     outline='#555555', width=2)
        img = png(open(os.path.join(ASSETS, 'powers', f)).read(), 32)
        sheet.paste(img, (x + 16, y0 + 16), img)
        draw.text((x + cell // 2, y0 + cell + 2), f[:-4], fill='#000', font=font, anchor='ma')
        x += cell + 14
    x += 20
    queen = {c: png(open(os.path.join(ASSETS, 'pieces', c + '-queen.svg')).read(), cell)
             for c in 'wb'}
    for f in sorted(os.listdir(os.path.join(ASSETS, 'marks'))):
        mark = png(open(os.path.join(ASSETS, 'marks', f)).read(), cell)
        for c, sq in (('w', light), ('b', dark)):
            sheet.paste(sq, (x, y0, x + cell, y0 + cell))
            sheet.paste(queen[c], (x, y0), queen[c])
            sheet.paste(mark, (x, y0), mark)
            x += cell + 2
        draw.text((x - cell - 1, y0 + cell + 2), f[:-4], fill='#000', font=font, anchor='ma')
        x += 16
    sheet.save(path, optimize=True)


def main():
    global G
    G = Glyphs(SYMBOLS)
    for name, fn in PIECES.items():
        for col in (WHITE, BLACK):
            write('pieces/%s-%s.svg' % (col['name'], name), svg(fn(col)))
    for name, body in power_badges().items():
        write('powers/%s.svg' % name, svg(body, 16))
    for name, body in MARKS.items():
        write('marks/%s.svg' % name, svg(body))
    make_font(os.path.join(ASSETS, 'fonts', 'DejaVuSans-Bold-subset.ttf'))
    if '--no-sheet' not in sys.argv:
        contact_sheet(os.path.join(ASSETS, 'contact-sheet.png'))


if __name__ == '__main__':
    main()
