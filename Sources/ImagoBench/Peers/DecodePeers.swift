/// The peers `imago bench` compares Imago with, in report order (`make peers` installs them
/// from PyPI at pinned versions; a peer that is not importable gets "skipped" rows).
public enum DecodePeers {
    /// Every peer, in the order the report's columns show them.
    public static let all: [DecodePeer] = [pillow, libvips, opencv, simplejpeg, libspng]

    /// The peer called `name` (a result row's `decoder`), if any.
    public static func named(_ name: String) -> DecodePeer? { all.first { $0.name == name } }

    /// Pillow: `Image.open(path).convert("RGBA")`; its `thumbnail()` asks the JPEG decoder for a
    /// DCT-scaled draft first, other formats are decoded in full and resized.
    public static let pillow = DecodePeer(
        name: "pillow", title: "Pillow", module: "PIL", versionExpression: "PIL.__version__",
        formats: [.jpeg, .png, .webp],
        setup: "import PIL\nfrom PIL import Image",
        decode: """
            im = Image.open(path).convert("RGBA")
            im.load()
            """,
        thumbnail: """
            im = Image.open(path)
            im.thumbnail((256, 256))
            im = im.convert("RGBA")
            """,
        thumbnailMethods: [.jpeg: .downsampledDecode, .png: .fullDecodeResize, .webp: .fullDecodeResize],
        environment: [:],
        note: "single-threaded by design")

    /// libvips through pyvips: one worker thread (`VIPS_CONCURRENCY=1`) and no operation cache,
    /// which would otherwise hand a warm loop the previous iteration's image.
    public static let libvips = DecodePeer(
        name: "libvips", title: "libvips", module: "pyvips", versionExpression: "pyvips.__version__ + ' (libvips ' + '.'.join(str(pyvips.version(i)) for i in range(3)) + ')'",
        formats: [.jpeg, .png, .webp],
        setup: "import pyvips\npyvips.cache_set_max(0)",
        decode: """
            im = pyvips.Image.new_from_file(path, access="sequential").colourspace("srgb")
            if not im.hasalpha():
                im = im.bandjoin(255)
            im.write_to_memory()
            """,
        thumbnail: """
            im = pyvips.Image.thumbnail(path, 256).colourspace("srgb")
            if not im.hasalpha():
                im = im.bandjoin(255)
            im.write_to_memory()
            """,
        thumbnailMethods: [.jpeg: .downsampledDecode, .png: .fullDecodeResize, .webp: .downsampledDecode],
        environment: ["VIPS_CONCURRENCY": "1"],
        note: "VIPS_CONCURRENCY=1, operation cache off, thumbnails by Image.thumbnail with shrink-on-load for JPEG and WebP")

    /// OpenCV: `imread` then `cvtColor` to RGBA. Its thumbnails ask `imread` for an eighth
    /// (`IMREAD_REDUCED_COLOR_8`, the largest reduction; the scenario's inputs are ≥ 12 MP, so
    /// the eighth is still ≥ 256 px), which only the JPEG decoder does while decoding; for PNG and
    /// WebP `imread` decodes in full and resizes. Then an area resize to 256 px.
    public static let opencv = DecodePeer(
        name: "opencv", title: "OpenCV", module: "cv2", versionExpression: "cv2.__version__",
        formats: [.jpeg, .png, .webp],
        setup: "import cv2\ncv2.setNumThreads(1)",
        decode: """
            im = cv2.imread(path, cv2.IMREAD_UNCHANGED)
            cv2.cvtColor(im, cv2.COLOR_BGRA2RGBA if im.shape[2] == 4 else cv2.COLOR_BGR2RGBA)
            """,
        thumbnail: """
            im = cv2.imread(path, cv2.IMREAD_REDUCED_COLOR_8)
            h, w = im.shape[:2]
            f = 256 / max(h, w)
            im = cv2.resize(im, (max(1, round(w * f)), max(1, round(h * f))), interpolation=cv2.INTER_AREA)
            cv2.cvtColor(im, cv2.COLOR_BGR2RGBA)
            """,
        thumbnailMethods: [.jpeg: .downsampledDecode, .png: .fullDecodeResize, .webp: .fullDecodeResize],
        environment: [:],
        note: "setNumThreads(1), thumbnails by IMREAD_REDUCED_COLOR_8, a scaled decode for JPEG only, then INTER_AREA")

    /// simplejpeg (libjpeg-turbo's TurboJPEG API), JPEG only. Its thumbnail is its scaled decode
    /// (`min_width`/`min_height` pick the largest DCT scale that stays ≥ 256 px): it has no resize,
    /// so the result is the scaled image (500×375 from 4000×3000), not exactly 256 px.
    public static let simplejpeg = DecodePeer(
        name: "simplejpeg", title: "simplejpeg", module: "simplejpeg", versionExpression: "simplejpeg.__version__",
        formats: [.jpeg],
        setup: "import simplejpeg",
        decode: """
            with open(path, "rb") as f:
                data = f.read()
            simplejpeg.decode_jpeg(data, colorspace="RGBA")
            """,
        thumbnail: """
            with open(path, "rb") as f:
                data = f.read()
            h, w, _, _ = simplejpeg.decode_jpeg_header(data)
            f = 256 / max(h, w)
            simplejpeg.decode_jpeg(data, colorspace="RGBA", min_height=round(h * f), min_width=round(w * f))
            """,
        thumbnailMethods: [.jpeg: .downsampledDecode],
        environment: [:],
        note: "JPEG only, its thumbnail is its scaled decode at ≥ 256 px with no final resize")

    /// libspng through imagecodecs, PNG only. `spng_decode` returns the file's own channels, so an
    /// RGB PNG gets its alpha added by a copy into a new RGBA array (one 4-byte-per-pixel write
    /// of the whole image, part of the time).
    public static let libspng = DecodePeer(
        name: "libspng", title: "libspng", module: "imagecodecs",
        versionExpression: "imagecodecs.spng_version().split()[-1] + ' (imagecodecs ' + imagecodecs.__version__ + ')'",
        formats: [.png],
        setup: "import imagecodecs\nimport numpy",
        decode: """
            with open(path, "rb") as f:
                data = f.read()
            im = imagecodecs.spng_decode(data)
            if im.ndim == 3 and im.shape[2] == 3:
                out = numpy.empty(im.shape[:2] + (4,), numpy.uint8)
                out[..., :3] = im
                out[..., 3] = 255
            """,
        thumbnail: nil, thumbnailMethods: [:],
        environment: [:],
        note: "PNG only, RGB output copied into RGBA with numpy, part of the time")
}
