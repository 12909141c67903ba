-- SPDX-License-Identifier: BSD-3-Clause
-- Wireshark / tshark post-dissector for DCFIT checking messages
-- (dataplane/dcfit/message.h, the one definition of the format): a 20-byte
-- message at offset 34 of an IEEE 802.1Qbb PFC frame (ethertype 0x8808,
-- opcode 0x0101), in the padding after the eight quanta, behind the magic
-- "DCFT". A PFC frame whose class-enable vector is 0 and that carries a
-- message is a standalone checking packet; otherwise the message rides on a
-- pause. Wireshark still decodes the PFC part as usual (macc.*); this adds a
-- "DCFIT" tree with the fields below, an Info column summary, and expert
-- warnings for a bad version, checksum or field. A message with the notice
-- flag (0x08) is a trigger notice (dataplane/dcfit/trigger_handler.h): the
-- switch gen declared a deadlock whose initial trigger is tri.
--
--   tshark -X lua_script:tools/wireshark/dcfit.lua -r capture.pcapng -Y dcfit
--   tshark -X lua_script:tools/wireshark/dcfit.lua -r capture.pcapng -Y dcfit \
--       -T fields -e frame.number -e dcfit.gen_sw -e dcfit.gen_port -e dcfit.seq \
--       -e dcfit.tri_sw -e dcfit.tri_port -e dcfit.flags -e dcfit.hops
-- Wireshark: copy it into the personal Lua plugins folder
-- (Help > About > Folders), or run wireshark -X lua_script:.../dcfit.lua.

local dcfit = Proto("dcfit", "DCFIT checking message")

local kinds = { [0] = "on a pause frame", [1] = "standalone checking packet" }
local f = dcfit.fields
f.kind = ProtoField.uint8("dcfit.kind", "Carried", base.DEC, kinds)
f.magic = ProtoField.string("dcfit.magic", "Magic")
f.version = ProtoField.uint8("dcfit.version", "Version")
f.flags = ProtoField.uint8("dcfit.flags", "Flags", base.HEX)
f.second_pass = ProtoField.bool("dcfit.flags.second_pass", "Second (temporal) pass", 8, nil, 0x01)
f.trigger_host = ProtoField.bool("dcfit.flags.trigger_host", "Initial trigger is a host", 8, nil, 0x02)
f.middle = ProtoField.bool("dcfit.flags.middle", "Initiator is a middle switch", 8, nil, 0x04)
f.notice = ProtoField.bool("dcfit.flags.notice",
  "Trigger notice (deadlock declared by gen, sent towards S_tri)", 8, nil, 0x08)
f.prio = ProtoField.uint8("dcfit.prio", "Priority")
f.hops = ProtoField.uint8("dcfit.hops", "Hops")
f.gen_sw = ProtoField.uint16("dcfit.gen_sw", "S_gen-ini (initiator switch)")
f.gen_port = ProtoField.uint8("dcfit.gen_port", "P_gen-ini (initiator port)")
f.tri_port = ProtoField.uint8("dcfit.tri_port", "P_tri (trigger port)")
f.tri_sw = ProtoField.uint16("dcfit.tri_sw", "S_tri (trigger switch)")
f.seq = ProtoField.uint32("dcfit.seq", "Seq")
f.checksum = ProtoField.uint16("dcfit.checksum", "Checksum", base.HEX)
f.checksum_ok = ProtoField.bool("dcfit.checksum_ok", "Checksum correct")

local e_version = ProtoExpert.new("dcfit.bad_version", "Unknown DCFIT version",
  expert.group.MALFORMED, expert.severity.WARN)
local e_checksum = ProtoExpert.new("dcfit.bad_checksum", "DCFIT checksum mismatch",
  expert.group.CHECKSUM, expert.severity.WARN)
local e_field = ProtoExpert.new("dcfit.bad_field",
  "DCFIT field out of range (priority > 7, port >= 64 or unknown flag)",
  expert.group.MALFORMED, expert.severity.WARN)
dcfit.experts = { e_version, e_checksum, e_field }

local OFF, LEN = 34, 20
-- Wireshark 4.0 embeds Lua 5.2 (no bitwise operators): its 'bit' library.
local band, bnot, rshift = bit.band, bit.bnot, bit.rshift

-- The Internet checksum of the message's first 18 bytes (message.h).
local function checksum(tvb)
  local sum = 0
  for i = 0, 16, 2 do sum = sum + tvb(OFF + i, 2):uint() end
  while sum > 0xffff do sum = band(sum, 0xffff) + rshift(sum, 16) end
  return band(bnot(sum), 0xffff)
end

function dcfit.dissector(tvb, pinfo, tree)
  if tvb:len() < OFF + LEN then return end
  if tvb(12, 2):uint() ~= 0x8808 or tvb(14, 2):uint() ~= 0x0101 then return end
  if tvb(OFF, 4):string() ~= "DCFT" then return end
  local t = tree:add(dcfit, tvb(OFF, LEN))
  local standalone = tvb(17, 1):uint() == 0 and 1 or 0
  t:add(f.kind, standalone):set_generated()
  t:add(f.magic, tvb(OFF, 4))
  local vi = t:add(f.version, tvb(OFF + 4, 1))
  local fl = tvb(OFF + 5, 1)
  local ft = t:add(f.flags, fl)
  ft:add(f.second_pass, fl)
  ft:add(f.trigger_host, fl)
  ft:add(f.middle, fl)
  ft:add(f.notice, fl)
  t:add(f.prio, tvb(OFF + 6, 1))
  t:add(f.hops, tvb(OFF + 7, 1))
  t:add(f.gen_sw, tvb(OFF + 8, 2))
  t:add(f.gen_port, tvb(OFF + 10, 1))
  t:add(f.tri_port, tvb(OFF + 11, 1))
  t:add(f.tri_sw, tvb(OFF + 12, 2))
  t:add(f.seq, tvb(OFF + 14, 4))
  local ci = t:add(f.checksum, tvb(OFF + 18, 2))
  local ok = checksum(tvb) == tvb(OFF + 18, 2):uint()
  t:add(f.checksum_ok, ok):set_generated()
  if tvb(OFF + 4, 1):uint() ~= 1 then vi:add_proto_expert_info(e_version) end
  if not ok then ci:add_proto_expert_info(e_checksum) end
  local flags = fl:uint()
  if tvb(OFF + 6, 1):uint() > 7 or tvb(OFF + 10, 1):uint() > 63 or
      tvb(OFF + 11, 1):uint() > 63 or band(flags, 0xf0) ~= 0 then
    t:add_proto_expert_info(e_field)
  end
  local tri_what = band(flags, 0x02) ~= 0 and " (host)" or ""
  pinfo.cols.info:append(string.format(" [DCFIT%s%s gen=%d/%d seq=%d tri=%d/%d%s hops=%d%s]",
    band(flags, 0x08) ~= 0 and " notice" or "",
    band(flags, 0x01) ~= 0 and " pass 2" or "",
    tvb(OFF + 8, 2):uint(), tvb(OFF + 10, 1):uint(), tvb(OFF + 14, 4):uint(),
    tvb(OFF + 12, 2):uint(), tvb(OFF + 11, 1):uint(), tri_what, tvb(OFF + 7, 1):uint(),
    standalone == 1 and " check" or ""))
end

register_postdissector(dcfit)
