#!/usr/bin/env python3
"""Checks the committed corpus with tools independent of Imago's decoder.

Run `swift run imago corpus Corpus --write-references` first (writes the git-ignored FILE.rgba
references), then `python3 Scripts/verify-corpus.py Corpus`. Needs djpeg (libjpeg-turbo-progs),
dwebp and webpmux (webp) on PATH; PNGs are decoded by the pure-Python decoder below (stdlib
zlib only), so the exact PNG expectations are checked against a second implementation.
Prints the measured PSNR next to each floor (how the floors in CorpusEntries.swift were set).
"""
import hashlib, json, math, re, struct, subprocess, sys, tempfile, zlib, os

def paeth(a,b,c):
    p=a+b-c; pa=abs(p-a); pb=abs(p-b); pc=abs(p-c)
    return a if pa<=pb and pa<=pc else (b if pb<=pc else c)
def unfilter(data, w, h, bpp_bits):
    bpp=max(1,bpp_bits//8); rb=(w*bpp_bits+7)//8; out=[]; prev=bytearray(rb); i=0
    for y in range(h):
        f=data[i]; row=bytearray(data[i+1:i+1+rb]); i+=1+rb
        for x in range(rb):
            a=row[x-bpp] if x>=bpp else 0; b=prev[x]; c=prev[x-bpp] if x>=bpp else 0
            if f==1: row[x]=(row[x]+a)&255
            elif f==2: row[x]=(row[x]+b)&255
            elif f==3: row[x]=(row[x]+((a+b)>>1))&255
            elif f==4: row[x]=(row[x]+paeth(a,b,c))&255
        out.append(row); prev=row
    return out, i
def samples(row, w, ch, d):
    n=w*ch
    if d==16: return [row[2*k]<<8|row[2*k+1] for k in range(n)]
    if d==8: return list(row[:n])
    res=[]
    for k in range(n):
        bit=k*d; res.append((row[bit//8]>>(8-d-bit%8))&((1<<d)-1))
    return res
def decode(path):
    b=open(path,'rb').read(); assert b[:8]==b'\x89PNG\r\n\x1a\n'
    o=8; idat=b''; plte=None; trns=None
    while o<len(b):
        L=struct.unpack('>I',b[o:o+4])[0]; t=b[o+4:o+8]; dd=b[o+8:o+8+L]
        assert zlib.crc32(b[o+4:o+8+L])==struct.unpack('>I',b[o+8+L:o+12+L])[0]
        if t==b'IHDR': w,h,d,ct,_,_,il=struct.unpack('>IIBBBBB',dd)
        elif t==b'PLTE': plte=dd
        elif t==b'tRNS': trns=dd
        elif t==b'IDAT': idat+=dd
        o+=12+L
    raw=zlib.decompress(idat); ch={0:1,2:3,3:1,4:2,6:4}[ct]
    grid=[[None]*w for _ in range(h)]
    passes=[(0,0,8,8),(4,0,8,8),(0,4,4,8),(2,0,4,4),(0,2,2,4),(1,0,2,2),(0,1,1,2)] if il else [(0,0,1,1)]
    pos=0
    for (x0,y0,dx,dy) in passes:
        pw=(w-x0+dx-1)//dx if w>x0 else 0; ph=(h-y0+dy-1)//dy if h>y0 else 0
        if pw==0 or ph==0: continue
        rows,used=unfilter(raw[pos:],pw,ph,ch*d); pos+=used
        for j,row in enumerate(rows):
            s=samples(row,pw,ch,d)
            for i in range(pw): grid[y0+j*dy][x0+i*dx]=s[i*ch:(i+1)*ch]
    def to8(v): return (v+128)//257 if d==16 else (v if d==8 else v*255//((1<<d)-1))
    key=None
    if trns and ct in (0,2): key=[struct.unpack('>H',trns[k:k+2])[0] for k in range(0,len(trns),2)]
    out=bytearray()
    for y in range(h):
        for x in range(w):
            s=grid[y][x]
            if ct==3:
                i=s[0]; out+=plte[3*i:3*i+3]+bytes([trns[i] if trns and i<len(trns) else 255]); continue
            c=s if ct in (2,6) else [s[0]]*3+s[1:]
            a=to8(c[3]) if len(c)==4 else 255
            if key is not None and s==key: a=0
            out+=bytes([to8(c[0]),to8(c[1]),to8(c[2]),a])
    return w,h,bytes(out)

def read_pnm(path):
    b=open(path,'rb').read()
    if b[:2]==b'P7':
        hdr,_,data=b.partition(b'ENDHDR\n'); f=dict(l.split(b' ',1) for l in hdr.split(b'\n')[1:] if b' ' in l)
        w,h,d=int(f[b'WIDTH']),int(f[b'HEIGHT']),int(f[b'DEPTH'])
    else:
        mm=re.match(rb'(P[56])\s+(\d+)\s+(\d+)\s+(\d+)\s',b); w,h=int(mm.group(2)),int(mm.group(3)); data=b[mm.end():]; d=3 if b[:2]==b'P6' else 1
    px=bytearray()
    for i in range(w*h):
        p=data[i*d:(i+1)*d]
        px+= bytes([p[0]]*3+[255]) if d==1 else (p+b'\xff' if d==3 else p)
    return w,h,bytes(px)
def psnr(ref,img):
    ce=cs=ae=0; opaque=True
    for i in range(0,len(ref),4):
        da=ref[i+3]-img[i+3]; ae+=da*da
        if ref[i+3]!=255: opaque=False
        if ref[i+3]==0: continue
        for c in range(3): d=ref[i+c]-img[i+c]; ce+=d*d
        cs+=3
    f=lambda e,n: math.inf if e==0 or n==0 else 10*math.log10(255*255/(e/n))
    rgb=f(ce,cs); a=None if opaque else f(ae,len(ref)//4)
    return rgb,a

def main(root):
    manifest = json.load(open(os.path.join(root, 'manifest.json')))
    tmp = tempfile.mkdtemp()
    failures = 0
    for e in manifest['entries']:
        kind = e['expect']['kind']
        path = os.path.join(root, e['file'])
        if kind == 'error':
            continue
        ref = open(path + '.rgba', 'rb').read()
        ref_sha = e['expect'].get('rgbaSHA256') or e['expect'].get('referenceSHA256')
        if hashlib.sha256(ref).hexdigest() != ref_sha:
            print('REFERENCE SHA MISMATCH', e['file']); failures += 1; continue
        if e['format'] == 'png':
            w, h, px = decode(path)
        else:
            out = os.path.join(tmp, 'out.pam')
            if e['format'] == 'jpeg':
                subprocess.run(['djpeg', '-pnm', '-outfile', out, path], check=True)
            else:
                src = path
                if e['metadata']['animated']:
                    src = os.path.join(tmp, 'f1.webp')
                    subprocess.run(['webpmux', '-get', 'frame', '1', path, '-o', src], check=True, capture_output=True)
                subprocess.run(['dwebp', '-pam', '-o', out, src], check=True, capture_output=True)
            w, h, px = read_pnm(out)
        if (w, h) != (e['width'], e['height']):
            print('SIZE MISMATCH', e['file'], w, h); failures += 1; continue
        if kind == 'exact':
            ok = px == ref
            print('%-48s exact %s' % (e['file'], 'OK' if ok else 'MISMATCH'))
        else:
            rgb, a = psnr(ref, px)
            combined = min(rgb, a if a is not None else math.inf)
            ok = combined >= e['expect']['minPSNR']
            print('%-48s psnr %6.2f (alpha %s) floor %5.1f %s' % (e['file'], rgb, '-' if a is None else '%.2f' % a,
                  e['expect']['minPSNR'], 'OK' if ok else 'BELOW FLOOR'))
        failures += 0 if ok else 1
    print('%d failure(s)' % failures)
    return 1 if failures else 0

if __name__ == '__main__':
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else 'Corpus'))
