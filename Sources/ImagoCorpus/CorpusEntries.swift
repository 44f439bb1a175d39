/// The valid corpus, entry by entry. Sizes are odd on purpose (37x23, 101x77): partial JPEG
/// MCUs, partial bytes of packed PNG rows and Adam7 passes that do not divide evenly.
///
/// PSNR floors: the PSNR djpeg (libjpeg-turbo 2.1.5) / dwebp (libwebp 1.2.4) output reaches
/// against the reference, minus 2 dB, rounded down to 0.5 dB, capped at 40 dB (1x1 files decode
/// exactly or nearly). The small files are grainy, saturated content at odd sizes, so q90 4:2:0
/// lands near 30 dB; that is the content, not a lenient floor. Re-measure after changing
/// ProceduralImage or a recipe (Scripts/verify-corpus.py prints the measured values).
extension CorpusCatalog {
    static var pngEntries: [CorpusEntrySpec] {
        var list: [CorpusEntrySpec] = []
        let depths: [(PNGRecipe.ColorType, [Int])] = [
            (.gray, [1, 2, 4, 8, 16]), (.rgb, [8, 16]), (.palette, [1, 2, 4, 8]),
            (.grayAlpha, [8, 16]), (.rgba, [8, 16]),
        ]
        for (colorType, bitDepths) in depths {
            let alpha: AlphaPattern = colorType == .grayAlpha || colorType == .rgba ? .radial : .none
            for depth in bitDepths {
                for interlaced in [false, true] {
                    let name = "png/\(colorType.rawValue)-\(depth)\(interlaced ? "-interlaced" : "").png"
                    list.append(spec(name, 37, 23, alpha: alpha,
                                     png: PNGRecipe(colorType, bitDepth: depth, interlaced: interlaced)))
                }
            }
        }
        list += [
            spec("png/palette-8-trns.png", 37, 23, png: PNGRecipe(.palette, bitDepth: 8, transparency: .paletteAlpha)),
            spec("png/palette-4-trns-interlaced.png", 37, 23,
                 png: PNGRecipe(.palette, bitDepth: 4, interlaced: true, transparency: .paletteAlpha)),
            spec("png/palette-1-trns.png", 37, 23, png: PNGRecipe(.palette, bitDepth: 1, transparency: .paletteAlpha)),
            spec("png/gray-4-key.png", 37, 23, png: PNGRecipe(.gray, bitDepth: 4, transparency: .key)),
            spec("png/gray-8-key.png", 37, 23, png: PNGRecipe(.gray, bitDepth: 8, transparency: .key)),
            spec("png/gray-16-key.png", 37, 23, png: PNGRecipe(.gray, bitDepth: 16, transparency: .key)),
            spec("png/rgb-8-key.png", 37, 23, png: PNGRecipe(.rgb, bitDepth: 8, transparency: .key)),
            spec("png/rgb-8-key-interlaced.png", 37, 23,
                 png: PNGRecipe(.rgb, bitDepth: 8, interlaced: true, transparency: .key)),
            spec("png/rgb-16-key.png", 37, 23, png: PNGRecipe(.rgb, bitDepth: 16, transparency: .key)),
            spec("png/rgba-8-1x1.png", 1, 1, alpha: .radial, png: PNGRecipe(.rgba, bitDepth: 8)),
            spec("png/gray-8-1x1-interlaced.png", 1, 1, png: PNGRecipe(.gray, bitDepth: 8, interlaced: true)),
            // 3x5 leaves some Adam7 passes empty.
            spec("png/rgb-8-3x5-interlaced.png", 3, 5, png: PNGRecipe(.rgb, bitDepth: 8, interlaced: true)),
            spec("png/rgba-16-alpha-160x120.png", 160, 120, alpha: .radial, png: PNGRecipe(.rgba, bitDepth: 16)),
            // Base of the invalid PNGs: big enough that truncation points land well inside IDAT.
            spec("png/rgb-8-160x120.png", 160, 120, png: PNGRecipe(.rgb, bitDepth: 8)),
        ]
        return list
    }

    static var jpegEntries: [CorpusEntrySpec] {
        func jpeg(_ name: String, _ recipe: JPEGRecipe, _ floor: Double, width: Int = 101, height: Int = 77,
                  seedName: String? = nil) -> CorpusEntrySpec {
            spec("jpeg/\(name).jpg", width, height, jpeg: recipe, minPSNR: floor, seedName: seedName)
        }
        var list = [
            jpeg("baseline-420-q90", JPEGRecipe(quality: 90), 29.5),
            jpeg("baseline-422-q90", JPEGRecipe(quality: 90, sampling: "2x1"), 28),
            jpeg("baseline-440-q90", JPEGRecipe(quality: 90, sampling: "1x2"), 30),
            jpeg("baseline-444-q90", JPEGRecipe(quality: 90, sampling: "1x1"), 34),
            jpeg("baseline-420-q50", JPEGRecipe(quality: 50), 25),
            jpeg("progressive-420-q90", JPEGRecipe(quality: 90, progressive: true), 30.5),
            jpeg("arithmetic-420-q90", JPEGRecipe(quality: 90, arithmetic: true), 28),
            jpeg("arithmetic-progressive-420-q90", JPEGRecipe(quality: 90, progressive: true, arithmetic: true), 30),
            jpeg("gray-q90", JPEGRecipe(input: .gray, quality: 90), 36.5),
            jpeg("cmyk-adobe-q90", JPEGRecipe(input: .cmyk, quality: 90, sampling: "1x1"), 37),
            jpeg("ycck-q90", JPEGRecipe(input: .ycck, quality: 90), 33),
            jpeg("restart-420-q90", JPEGRecipe(quality: 90, restartInterval: 2), 28.5),
            jpeg("restart-progressive-420-q90", JPEGRecipe(quality: 90, progressive: true, restartInterval: 1), 28),
            jpeg("baseline-420-q90-1x1", JPEGRecipe(quality: 90), 40, width: 1, height: 1),
            jpeg("baseline-420-q85-1600x1200", JPEGRecipe(quality: 85), 34, width: 1600, height: 1200),
        ]
        // One picture in all eight orientations; non-square so every orientation is
        // distinguishable (5-8 store it as 45x67).
        for orientation in 1...8 {
            list.append(jpeg("orientation-\(orientation)", JPEGRecipe(quality: 90, orientation: orientation), 27,
                             width: 67, height: 45, seedName: "jpeg/orientation"))
        }
        return list
    }

    static var webpEntries: [CorpusEntrySpec] {
        func webp(_ name: String, _ recipe: WebPRecipe, _ floor: Double?, width: Int = 101, height: Int = 77,
                  alpha: AlphaPattern = .none) -> CorpusEntrySpec {
            spec("webp/\(name).webp", width, height, alpha: alpha, webp: recipe, minPSNR: floor)
        }
        return [
            webp("lossy-q80", WebPRecipe(lossless: false, quality: 80, keepAlpha: false), 29.5),
            webp("lossy-alpha-q80", WebPRecipe(lossless: false, quality: 80), 29.5, alpha: .radial),
            webp("lossless", WebPRecipe(lossless: true, quality: 75), nil, alpha: .radial),
            webp("lossless-opaque", WebPRecipe(lossless: true, quality: 75, keepAlpha: false), nil),
            webp("animated-lossless", WebPRecipe(lossless: true, quality: 75, frameCount: 3), nil, width: 64, height: 48),
            webp("animated-lossy-q80", WebPRecipe(lossless: false, quality: 80, frameCount: 3), 25, width: 64, height: 48),
            webp("lossless-1x1", WebPRecipe(lossless: true, quality: 75), nil, width: 1, height: 1, alpha: .radial),
            webp("lossy-q80-1x1", WebPRecipe(lossless: false, quality: 80, keepAlpha: false), 40, width: 1, height: 1),
            webp("lossy-q80-1600x1200", WebPRecipe(lossless: false, quality: 80, keepAlpha: false), 33,
                 width: 1600, height: 1200),
        ]
    }
}
