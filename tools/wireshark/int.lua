-- SPDX-License-Identifier: BSD-3-Clause
-- Wireshark / tshark post-dissector for the switch's in-band network
-- telemetry (dataplane/net/int_trailer.h, the one definition of the
-- format): a trailer right after an IPv4 datagram, where Ethernet padding
-- would be (Wireshark shows those bytes as eth.trailer), behind the magic
-- 0x494E ("IN"). Kinds: hop records switches write (1), their copy a
-- receiver echoes in its ACK (2), a sender timestamp (3) and its echo (4),
-- HPCC-PINT's one value (5: the path's largest utilisation as a power of
-- the log base, u = base^power / 512, 16 bits at offset 4) and its echo (6).
-- Each hop record is the HPCC work's simulator's 64-bit word: line rate
-- code (3 bits), time ns mod 2^24 (24), bytes the port sent in 128 x multi
-- units mod 2^20 (20), queue bytes in 80 x multi units (17). Adds an "INT"
-- tree with the fields below, decoded to bytes and b/s, and an Info note.
--
--   tshark -X lua_script:tools/wireshark/int.lua -r capture.pcapng -Y int
--   tshark -X lua_script:tools/wireshark/int.lua -r capture.pcapng -Y int \
--       -T fields -e frame.number -e int.kind -e int.nhop -e int.hop.qlen_bytes
-- Wireshark: copy it into the personal Lua plugins folder
-- (Help > About > Folders), or run wireshark -X lua_script:.../int.lua.

local int = Proto("int", "In-band network telemetry (INT trailer)")

local kinds = { [1] = "hop records", [2] = "hop records, echoed",
                [3] = "sender timestamp", [4] = "sender timestamp, echoed",
                [5] = "PINT utilisation", [6] = "PINT utilisation, echoed" }
local rates = { [0] = 25e9, [1] = 50e9, [2] = 100e9, [3] = 200e9, [4] = 400e9,
                [5] = 10e9, [6] = 40e9, [7] = 800e9 }
local f = int.fields
f.magic = ProtoField.uint16("int.magic", "Magic", base.HEX)
f.kind = ProtoField.uint8("int.kind", "Kind", base.DEC, kinds)
f.nhop = ProtoField.uint8("int.nhop", "Hops pushed")
f.multi = ProtoField.uint8("int.multi", "Unit multiplier")
f.ts = ProtoField.uint64("int.ts", "Sender timestamp (ns)")
f.pint = ProtoField.uint16("int.pint.power", "PINT power (u = base^power / 512)")
f.hop = ProtoField.uint64("int.hop", "Hop record", base.HEX)
f.hop_index = ProtoField.uint8("int.hop.index", "Record")
f.hop_rate = ProtoField.uint64("int.hop.rate_bps", "Line rate (b/s)")
f.hop_time = ProtoField.uint32("int.hop.time", "Time (ns mod 2^24)")
f.hop_bytes = ProtoField.uint64("int.hop.tx_bytes", "Port bytes sent (mod 2^20 x 128 x multi)")
f.hop_qlen = ProtoField.uint32("int.hop.qlen_bytes", "Port queue (bytes)")

local trailer_f = Field.new("eth.trailer")

function int.dissector(tvb, pinfo, tree)
  for _, fi in ipairs({ trailer_f() }) do
    -- From where the trailer starts to the frame's end: Wireshark may take
    -- a trailer's last 4 bytes for an FCS it assumes.
    local off = fi.offset
    local len = tvb:len() - off
    if len >= 4 and tvb(off, 2):uint() == 0x494E then
      local kind = tvb(off + 2, 1):uint()
      local size = (kind == 1 or kind == 2) and 46 or ((kind == 3 or kind == 4) and 12 or
                   ((kind == 5 or kind == 6) and 6 or 0))
      if size > 0 and len >= size then
        local t = tree:add(int, tvb(off, size))
        t:add(f.magic, tvb(off, 2))
        t:add(f.kind, tvb(off + 2, 1))
        if size == 12 then
          t:add(f.ts, tvb(off + 4, 8))
          pinfo.cols.info:append(" [INT " .. kinds[kind] .. "]")
        elseif size == 6 then
          t:add(f.pint, tvb(off + 4, 2))
          pinfo.cols.info:append(string.format(" [INT %s, power %d]", kinds[kind],
                                               tvb(off + 4, 2):uint()))
        else
          local nhop = tvb(off + 3, 1):uint()
          local multi = tvb(off + 4, 1):uint()
          if multi == 0 then multi = 1 end
          t:add(f.nhop, tvb(off + 3, 1))
          t:add(f.multi, tvb(off + 4, 1))
          local held = math.min(nhop, 5)
          local q = {}
          for i = 0, held - 1 do
            local r = tvb(off + 6 + 8 * i, 8)
            local w = r:uint64()
            local rate = w:rshift(61):tonumber()
            local time = w:rshift(37):band(0xffffff):tonumber()
            local bytes = w:rshift(17):band(0xfffff):tonumber()
            local qlen = w:band(0x1ffff):tonumber()
            local h = t:add(f.hop, r)
            h:add(f.hop_index, i)
            h:add(f.hop_rate, UInt64(rates[rate]))
            h:add(f.hop_time, time)
            h:add(f.hop_bytes, UInt64(bytes * 128 * multi))
            h:add(f.hop_qlen, qlen * 80 * multi)
            h:append_text(string.format(" (#%d: t=%d q=%dB)", i, time, qlen * 80 * multi))
            q[#q + 1] = tostring(qlen * 80 * multi)
          end
          pinfo.cols.info:append(string.format(" [INT %s, %d hops, q=%s]", kinds[kind], nhop,
                                               table.concat(q, "/")))
        end
      end
    end
  end
end

register_postdissector(int)
