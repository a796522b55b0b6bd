-- Neovim's built-in LSP client against arecipe-lsp, headless: open the
-- Kimi-K3 example, inject an error and wait for its diagnostic, undo it and
-- wait for a clean buffer, hover `graph_max` on the `at conc 14` line, then
-- go to the definition of `atom` and land in std's engine. Every step's
-- result is written to $LSP_E2E_OUT for FileCheck; any failure exits 1.
local out = assert(io.open(os.getenv('LSP_E2E_OUT'), 'w'))
local function say(...)
  out:write(table.concat({ ... }, ' '), '\n')
  out:flush()
end

local function fail(msg)
  say('FAIL', msg)
  out:close()
  vim.cmd('cquit 1')
end

local function main()
  local file = os.getenv('LSP_E2E_FILE')
  vim.cmd('edit ' .. vim.fn.fnameescape(file))
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].filetype = 'arecipe'
  local client_id = vim.lsp.start_client({
    name = 'arecipe',
    cmd = { 'arecipe-lsp' },
    root_dir = vim.fn.fnamemodify(file, ':h'),
  })
  if not client_id then
    return fail('arecipe-lsp did not start')
  end
  vim.lsp.buf_attach_client(buf, client_id)
  local client = vim.lsp.get_client_by_id(client_id)
  if not vim.wait(20000, function() return client.initialized end, 20) then
    return fail('no answer to initialize')
  end
  say('initialized', client.name)

  -- The example compiles without a diagnostic.
  local function diags() return vim.diagnostic.get(buf) end
  -- Inject an error on line 33: a misspelt knob.
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  local row
  for i, l in ipairs(lines) do
    if l:match('^%s*max_num_seqs%s*= 32') then row = i end
  end
  if not row then return fail('no max_num_seqs line') end
  vim.api.nvim_buf_set_lines(buf, row - 1, row, false,
                             { (lines[row]:gsub('max_num_seqs', 'max_num_seq')) })
  if not vim.wait(20000, function() return #diags() > 0 end, 20) then
    return fail('no diagnostic for the injected error')
  end
  for _, d in ipairs(diags()) do
    say('diagnostic', (d.lnum + 1) .. ':' .. (d.col + 1), d.message)
  end
  -- Put it back: the diagnostics clear.
  vim.api.nvim_buf_set_lines(buf, row - 1, row, false, { lines[row] })
  if not vim.wait(20000, function() return #diags() == 0 end, 20) then
    return fail('the diagnostic did not clear')
  end
  say('diagnostics cleared')

  -- Hover `graph_max` on the `at conc 14` line.
  lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  local hrow, hcol
  for i, l in ipairs(lines) do
    if l:match('^%s*at conc 14 ') then
      hrow, hcol = i, l:find('graph_max', 1, true)
    end
  end
  if not hcol then return fail('no graph_max on the at conc 14 line') end
  vim.api.nvim_win_set_cursor(0, { hrow, hcol })
  local params = vim.lsp.util.make_position_params()
  local res = vim.lsp.buf_request_sync(buf, 'textDocument/hover', params, 20000)
  local hover = res and res[client_id] and res[client_id].result
  if not hover then return fail('no hover') end
  for _, l in ipairs(vim.split(hover.contents.value, '\n', true)) do
    say('hover', l)
  end

  -- Go to the definition of `atom` (the recipe's engine).
  for i, l in ipairs(lines) do
    local c = l:find('= atom', 1, true)
    if c and l:match('^%s*engine') then
      vim.api.nvim_win_set_cursor(0, { i, c + 2 })
    end
  end
  params = vim.lsp.util.make_position_params()
  res = vim.lsp.buf_request_sync(buf, 'textDocument/definition', params, 20000)
  local loc = res and res[client_id] and res[client_id].result
  if not loc then return fail('no definition') end
  if vim.tbl_islist(loc) then loc = loc[1] end
  vim.lsp.util.jump_to_location(loc, 'utf-16')
  local pos = vim.api.nvim_win_get_cursor(0)
  say('jumped', vim.api.nvim_buf_get_name(0) .. ':' .. pos[1] .. ':' .. (pos[2] + 1))
  say('line', vim.api.nvim_get_current_line())

  client.stop()
  vim.wait(5000, function() return client.is_stopped() end, 20)
  say('done')
  out:close()
  vim.cmd('qall!')
end

local ok, err = pcall(main)
if not ok then fail(tostring(err)) end
