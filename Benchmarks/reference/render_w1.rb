#!/usr/bin/env ruby
# The Ruby reference's side of the W1 comparison (Shopify Liquid, Debian's ruby-liquid).
#   ruby [--yjit] render_w1.rb TEMPLATES.json CONTEXTS.ndjson [parse|render|batch] [liquid-c]
# render: parses every field once, decodes the contexts outside the timed loop, then renders
#         every field for every context; prints `render_seconds=S renders=N`.
# parse:  parses every field N times; prints `parse_seconds=S parses=N`.
# batch:  the whole batch job, as `pushliquid batch` does it: read NDJSON from the file, render
#         every field, build the APNs payload, write one JSON line each to /dev/null;
#         prints `batch_seconds=S lines=N renders=N`.
require 'json'
require 'liquid'
require 'liquid/c' if ARGV[3] == 'liquid-c'  # Shopify's C extension (Debian's ruby-liquid-c)

require_relative '../../scripts/reference/rails_blank'

templates_path, contexts_path, mode = ARGV[0], ARGV[1], (ARGV[2] || 'render')
spec = JSON.parse(File.read(templates_path))
fields = [['title', spec['title']], ['body', spec['body']]] + spec['key_value_pairs'].to_a
now = Process.clock_gettime(Process::CLOCK_MONOTONIC)

case mode
when 'parse'
  rounds = 2000
  t = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  rounds.times { fields.each { |_, src| Liquid::Template.parse(src) } }
  s = Process.clock_gettime(Process::CLOCK_MONOTONIC) - t
  puts "parse_seconds=#{s.round(6)} parses=#{rounds * fields.size}"
when 'render'
  compiled = fields.map { |_, src| Liquid::Template.parse(src) }
  contexts = File.readlines(contexts_path).map { |l| JSON.parse(l) }
  renders = 0
  t = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  contexts.each do |ctx|
    compiled.each { |tpl| tpl.render(ctx); renders += 1 }
  end
  s = Process.clock_gettime(Process::CLOCK_MONOTONIC) - t
  puts "render_seconds=#{s.round(6)} renders=#{renders}"
when 'batch'
  compiled = fields.map { |name, src| [name, Liquid::Template.parse(src)] }
  lines = 0
  renders = 0
  t = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  File.open('/dev/null', 'w') do |out|
    File.foreach(contexts_path).with_index(1) do |line, n|
      ctx = JSON.parse(line)
      r = compiled.map { |name, tpl| [name, tpl.render(ctx)] }.to_h
      renders += compiled.size
      payload = { 'aps' => { 'alert' => { 'title' => r['title'], 'body' => r['body'] } }, 'ab' => { 'c' => nil } }
      spec['key_value_pairs'].each_key { |k| payload[k] = r[k] }
      out.puts(JSON.generate({ 'line' => n, 'external_id' => ctx.dig('profile', 'external_id'), 'status' => 'rendered', 'payload' => payload }))
      lines += 1
    end
  end
  s = Process.clock_gettime(Process::CLOCK_MONOTONIC) - t
  puts "batch_seconds=#{s.round(6)} lines=#{lines} renders=#{renders}"
end
